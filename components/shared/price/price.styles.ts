import { css } from 'lit'

export const styles = css`
  :host { display: inline-flex; flex-wrap: wrap; align-items: baseline; gap: 0.4em; font-variant-numeric: tabular-nums; font-weight: 600; white-space: nowrap; }
  del { color: var(--_text-2); font-weight: 400; text-decoration-thickness: 2px; }
  ins { text-decoration: none; }
  .sr-only { position: absolute; inline-size: 1px; block-size: 1px; margin: -1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`
