import { css } from 'lit'

export const styles = css`
  .views { display: flex; flex-direction: column; gap: calc(var(--_space) * 3); }
  .state-box { padding: calc(var(--_space) * 2); border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); }
`
