/**
 * The operator console's page script (dist/console/assets/console.js, `npm run build:console`): registers
 * <svc-console> and its pages, and styles the document itself with a constructed stylesheet (the page's CSP
 * allows no inline style, and a constructed sheet is no inline style).
 */
import { css } from 'lit'
import './app.ts'

const documentStyles = css`
  html, body { margin: 0; padding: 0; }
  body { overflow-wrap: anywhere; }
`
document.adoptedStyleSheets = [...document.adoptedStyleSheets, documentStyles.styleSheet!]
