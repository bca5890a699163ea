import { css } from 'lit'

export const styles = css`
  .journey { display: flex; flex-direction: column; gap: calc(var(--_space) * 1.5); }
  .rows, .families { display: flex; flex-direction: column; gap: var(--_space); }
  .rows:focus, .families:focus { outline: none; }
  .rows:focus-visible, .families:focus-visible { box-shadow: var(--_focus); border-radius: var(--_radius); }
  .row {
    display: flex; flex-wrap: wrap; align-items: center; gap: var(--_space) calc(var(--_space) * 2);
    padding: calc(var(--_space) * 1.25) calc(var(--_space) * 1.5); border: 1px solid var(--_border); border-radius: var(--_radius);
  }
  .who { flex: 1 1 6rem; min-inline-size: 0; font-weight: 600; }
  .tag { font-size: 0.8125rem; font-weight: 400; padding-inline: 0.5em; border-radius: 999px; background: var(--_surface); border: 1px solid var(--_border); }
  .buy { display: flex; flex-wrap: wrap; align-items: center; gap: calc(var(--_space) * 1.5); margin-inline-start: auto; }
  .reason { font-size: 0.875rem; margin-inline-start: auto; }
  .switch {
    display: inline-flex; align-items: center; gap: var(--_space); min-block-size: 2.75rem; padding-inline: var(--_space);
    border: 0; border-radius: var(--_radius); background: transparent; color: var(--_text); font: inherit; cursor: pointer;
  }
  .switch:hover { background: var(--_surface); }
  .switch[aria-disabled='true'] { opacity: 0.55; cursor: not-allowed; }
  .track {
    position: relative; inline-size: 2.75rem; block-size: 1.5rem; border-radius: 999px; flex: none;
    background: var(--_bg); border: 2px solid var(--_text-2); transition: background-color 120ms, border-color 120ms;
  }
  .thumb {
    position: absolute; inset-block-start: 2px; inset-inline-start: 2px; inline-size: 1rem; block-size: 1rem; border-radius: 50%;
    background: var(--_text-2); transition: inset-inline-start 120ms, background-color 120ms;
  }
  .switch[aria-checked='true'] .track { background: var(--_primary); border-color: var(--_primary); }
  .switch[aria-checked='true'] .thumb { inset-inline-start: calc(100% - 1rem - 2px); background: var(--_on-primary); }
  /* Room for the longer word, so prices stay in one column as switches flip. */
  .switch-text { min-inline-size: 4.5em; text-align: start; font-weight: 600; }
  .states { flex-basis: 100%; display: flex; flex-direction: column; gap: var(--_space); }
  .family {
    display: flex; flex-direction: column; gap: var(--_space);
    padding: calc(var(--_space) * 1.5); border: 1px solid var(--_border); border-radius: var(--_radius);
  }
  .family.selected { border-color: var(--_primary); box-shadow: inset 0 0 0 1px var(--_primary); }
  .family-head { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: var(--_space); }
  .benefits { display: flex; flex-direction: column; gap: 0.25rem; }
  .benefits li { display: flex; gap: var(--_space); align-items: flex-start; }
  .benefits .icon { flex: none; color: var(--_success); margin-block-start: 0.1em; }
  .per { font-weight: 600; }
`
