import { css } from 'lit'

export const styles = css`
  .journey { display: flex; flex-direction: column; gap: calc(var(--_space) * 1.5); }
  .passengers { display: flex; flex-direction: column; gap: calc(var(--_space) * 1.5); }
  .passenger {
    display: flex; flex-direction: column; gap: var(--_space);
    padding: calc(var(--_space) * 1.5); border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg);
  }
  .passenger-head { display: flex; flex-wrap: wrap; align-items: center; gap: var(--_space); }
  .tag { font-size: 0.8125rem; padding-inline: 0.5em; border-radius: 999px; background: var(--_surface); border: 1px solid var(--_border); color: var(--_text); }
  .included { display: flex; flex-direction: column; gap: calc(var(--_space) / 2); }
  .included li {
    display: flex; flex-wrap: wrap; align-items: center; gap: var(--_space);
    padding: var(--_space); border-radius: calc(var(--_radius) / 1.5); background: var(--_surface);
  }
  .included .icon { color: var(--_success); flex: none; }
  .included .what { flex: 1 1 10rem; min-inline-size: 0; }
  .options { display: flex; flex-direction: column; }
  .options:focus { outline: none; }
  .options:focus-visible { box-shadow: var(--_focus); border-radius: var(--_radius); }
  .option {
    display: flex; flex-wrap: wrap; align-items: center; gap: var(--_space) calc(var(--_space) * 2);
    padding-block: calc(var(--_space) * 1.25);
    border-block-start: 1px solid var(--_border);
  }
  .option:first-child { border-block-start: 0; }
  .info { flex: 1 1 11rem; min-inline-size: 0; display: flex; flex-direction: column; gap: 0.125rem; }
  .name { display: flex; align-items: center; gap: var(--_space); font-weight: 600; }
  .name .icon { flex: none; color: var(--_text-2); }
  .spec { font-size: 0.875rem; }
  .buy { display: flex; flex-wrap: wrap; align-items: center; justify-content: flex-end; gap: var(--_space) calc(var(--_space) * 1.5); margin-inline-start: auto; }
  .stepper { display: inline-flex; align-items: center; border: 1px solid var(--_text-2); border-radius: var(--_radius); }
  .step {
    display: inline-grid; place-items: center; inline-size: 2.75rem; block-size: 2.75rem;
    border: 0; border-radius: calc(var(--_radius) - 1px); background: transparent; color: var(--_primary); cursor: pointer; font: inherit;
  }
  .step:hover { background: var(--_surface); }
  .step[aria-disabled='true'] { color: var(--_text-2); opacity: 0.5; cursor: not-allowed; }
  .step[aria-disabled='true']:hover { background: transparent; }
  .count { min-inline-size: 2ch; text-align: center; font-weight: 650; font-variant-numeric: tabular-nums; }
  .limit { font-size: 0.8125rem; flex-basis: 100%; text-align: end; }
  .reason { font-size: 0.875rem; margin-inline-start: auto; text-align: end; }
  .states { flex-basis: 100%; display: flex; flex-direction: column; gap: var(--_space); }
`
