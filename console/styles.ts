/**
 * What every page of the console shares: the widgets' theme tokens (components/theme.ts: `--svc-*` custom
 * properties with their defaults, the focus ring, `.sr-only`) and the few patterns the pages repeat. Lists
 * are cards that wrap, not wide tables, so a page fits 320 px without scrolling sideways.
 */
import { css } from 'lit'
import { tokenVars } from '../components/theme.ts'

export const pageStyles = [
  tokenVars,
  css`
    :host { display: block; }
    h1 { font-size: 1.4rem; margin: 0 0 calc(var(--_space) * 2); overflow-wrap: anywhere; }
    h1:focus { outline: none; }
    h2 { font-size: 1.1rem; margin: calc(var(--_space) * 3) 0 var(--_space); }
    h3 { font-size: 1rem; margin: 0 0 var(--_space); overflow-wrap: anywhere; }
    a { color: var(--_primary); }
    p { margin: 0 0 var(--_space); }
    code, .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
    ul.cards { list-style: none; margin: 0; padding: 0; display: grid; gap: var(--_space); }
    ul.cards > li, .card {
      border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_surface);
      padding: calc(var(--_space) * 1.5); min-width: 0; overflow-wrap: anywhere;
    }
    dl { display: grid; grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: 2px var(--_space); margin: 0; }
    dt { color: var(--_text-2); }
    dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
    button, input, select {
      font: inherit; color: inherit; border-radius: var(--_radius); min-height: 44px;
      border: 1px solid var(--_border); background: var(--_bg); padding: 0 calc(var(--_space) * 1.5);
      max-width: 100%;
    }
    button { cursor: pointer; }
    button.primary { background: var(--_primary); color: var(--_on-primary); border-color: var(--_primary); }
    button.danger { color: var(--_danger); border-color: var(--_danger); }
    button:disabled { opacity: 0.6; cursor: not-allowed; }
    form.filters, .actions { display: flex; flex-wrap: wrap; gap: var(--_space); align-items: flex-end; margin-bottom: calc(var(--_space) * 2); }
    /* One column that may shrink: a select's long option (a seller's name and id) would hold it wider than 320 px. */
    label { display: grid; grid-template-columns: minmax(0, 1fr); gap: 4px; min-width: 0; max-width: 100%; }
    .error { color: var(--_danger); }
    .muted { color: var(--_text-2); }
    .state { font-weight: 600; }
    dialog {
      border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); color: var(--_text);
      max-width: min(32rem, calc(100vw - 2rem)); padding: calc(var(--_space) * 2);
    }
    dialog::backdrop { background: rgb(0 0 0 / 40%); }
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 22rem), 1fr)); gap: calc(var(--_space) * 2); }
    ol.timeline { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
    ol.timeline > li { border-inline-start: 3px solid var(--_border); padding: 4px var(--_space); min-width: 0; overflow-wrap: anywhere; }
    ol.timeline > li.failed { border-inline-start-color: var(--_danger); }
    .time { color: var(--_text-2); font-variant-numeric: tabular-nums; margin-inline-end: var(--_space); }
    pre.body {
      margin: 4px 0 0; padding: var(--_space); background: var(--_bg); border: 1px solid var(--_border);
      border-radius: var(--_radius); white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word;
      font-size: 0.85rem;
    }
    .ok { color: var(--_success); }
    .secret { display: block; padding: var(--_space); background: var(--_surface); border-radius: var(--_radius); user-select: all; }
  `,
]
