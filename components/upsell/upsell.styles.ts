import { css } from 'lit'

export const styles = css`
  .views { display: flex; flex-direction: column; gap: calc(var(--_space) * 3); }
  .sections { display: flex; flex-direction: column; gap: calc(var(--_space) * 4); }
  .section { display: flex; flex-direction: column; gap: calc(var(--_space) * 1.5); }
  .section + .section { padding-block-start: calc(var(--_space) * 3); border-block-start: 1px solid var(--_border); }
  .state-box { padding: calc(var(--_space) * 2); border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); }
`
