import { css } from 'lit'

export const styles = css`
  :host { display: inline-flex; align-items: center; gap: 0.5em; color: var(--_text-2); --_size: var(--svc-spinner-size, 1.25em); }
  .ring {
    flex: none; inline-size: var(--_size); block-size: var(--_size); border-radius: 50%;
    border: 0.18em solid var(--_border); border-block-start-color: var(--_primary);
    animation: spin 0.8s linear infinite;
  }
  @keyframes spin { to { transform: rotate(1turn); } }
`
