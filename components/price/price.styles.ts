import { css } from 'lit'

export const styles = css`
  :host { display: inline-flex; flex-wrap: wrap; align-items: baseline; gap: 0.4em; font-variant-numeric: tabular-nums; font-weight: 600; white-space: nowrap; }
  del { color: var(--_text-2); font-weight: 400; text-decoration-thickness: 2px; }
  ins { text-decoration: none; }
`
