import { css } from 'lit'

export const styles = css`
  .view { padding: calc(var(--_space) * 2); border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); }
  .items { display: flex; flex-direction: column; }
  .item { display: flex; flex-direction: column; gap: var(--_space); padding-block: calc(var(--_space) * 1.25); border-block-start: 1px solid var(--_border); }
  .item:first-child { border-block-start: 0; padding-block-start: 0; }
  .line { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: flex-start; gap: var(--_space) calc(var(--_space) * 2); }
  .what { flex: 1 1 10rem; min-inline-size: 0; display: flex; flex-direction: column; }
  .name { font-weight: 600; }
  .context { font-size: 0.875rem; }
  .meta { display: flex; flex-wrap: wrap; align-items: center; justify-content: flex-end; gap: var(--_space); margin-inline-start: auto; }
  .grand { padding-block-start: calc(var(--_space) * 1.25); border-block-start: 2px solid var(--_border); font-size: 1.0625rem; }
`
