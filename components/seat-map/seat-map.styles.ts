import { css } from 'lit'

/**
 * The seat map's own styles, over `tokenVars` and `sharedStyles` (buttons, notices, skeleton, card). Colours
 * come from the `--_*` aliases of the `--svc-*` tokens, so a theme and dark mode reach the cabin too; the
 * price bands mix the primary colour into the background, so they follow both.
 */
export const seatMapStyles = css`
  :host {
    min-inline-size: 0;
    max-inline-size: 100%;
    --seat-size: var(--svc-seat-size, 2rem);
    --seat-gap: var(--svc-seat-gap, 4px);
    --seat-aisle: var(--svc-seat-aisle, calc(var(--seat-size) * 0.6));
    --seat-side: 14px;
    --seat-outline: var(--svc-seat-outline, var(--_text-2));
    --seat-band-1: var(--svc-seat-band-1, color-mix(in srgb, var(--_primary) 14%, var(--_bg)));
    --seat-band-2: var(--svc-seat-band-2, color-mix(in srgb, var(--_primary) 40%, var(--_bg)));
    --seat-band-3: var(--svc-seat-band-3, color-mix(in srgb, var(--_primary) 72%, var(--_bg)));
    --seat-selected: var(--svc-seat-selected, var(--_success));
    --seat-other: var(--svc-seat-other, var(--_text-2));
    --seat-taken: var(--svc-seat-taken, var(--_surface));
    --seat-exit: var(--svc-seat-exit, var(--_danger));
    --seat-wing: var(--svc-seat-wing, color-mix(in srgb, var(--_text-2) 35%, transparent));
  }
  [hidden] { display: none !important; }
  button { font: inherit; color: inherit; }

  .seat-map, .panel { display: flex; flex-direction: column; gap: calc(var(--_space) * 2); min-inline-size: 0; }
  /* Lets the cabin shrink its seats when the widget itself is narrow, whatever the viewport. (On this
     block, not on :host: a host in a seller's flex row would otherwise shrink to nothing.) */
  .seat-map { container-type: inline-size; }

  /* Tabs: flights and decks. */
  [role='tablist'] { display: flex; flex-wrap: wrap; gap: var(--_space); }
  [role='tab'] {
    display: inline-flex; flex-direction: column; align-items: flex-start; justify-content: center; gap: 2px;
    min-block-size: 2.75rem; padding-block: calc(var(--_space) * 0.75); padding-inline: calc(var(--_space) * 1.5);
    border: 1px solid var(--_border); border-radius: var(--_radius);
    background: var(--_bg); cursor: pointer; text-align: start;
  }
  [role='tab']:hover { background: var(--_surface); }
  [role='tab'][aria-selected='true'] {
    border-color: var(--_primary);
    box-shadow: inset 0 -3px 0 var(--_primary);
    background: color-mix(in srgb, var(--_primary) 8%, var(--_bg));
  }
  [role='tab'][aria-selected='true']:focus-visible { box-shadow: inset 0 -3px 0 var(--_primary), var(--_focus); }
  .tab-main { font-weight: 600; unicode-bidi: isolate; }
  .tab-sub { font-size: 0.8125rem; color: var(--_text-2); }
  .route { display: flex; flex-wrap: wrap; gap: var(--_space); align-items: baseline; }

  /* Passengers: radio chips. */
  fieldset { margin: 0; padding: 0; border: 0; min-inline-size: 0; }
  legend { padding: 0; margin-block-end: calc(var(--_space) * 0.75); font-weight: 600; }
  .passengers-list { display: flex; flex-wrap: wrap; gap: var(--_space); }
  .passenger {
    position: relative; display: inline-flex; flex-direction: column; justify-content: center; gap: 2px;
    min-block-size: 2.75rem; min-inline-size: 8rem; max-inline-size: 100%;
    padding-block: calc(var(--_space) * 0.75); padding-inline: calc(var(--_space) * 1.5);
    border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--_bg); cursor: pointer;
    overflow-wrap: anywhere;
  }
  .passenger:hover { background: var(--_surface); }
  .passenger input { position: absolute; inset: 0; inline-size: 100%; block-size: 100%; opacity: 0; margin: 0; cursor: pointer; }
  .passenger:has(input:checked) {
    border-color: var(--_primary);
    box-shadow: inset 0 0 0 1px var(--_primary);
    background: color-mix(in srgb, var(--_primary) 8%, var(--_bg));
  }
  .passenger:has(input:focus-visible) { box-shadow: inset 0 0 0 1px var(--_primary), var(--_focus); }
  .p-name { font-weight: 600; }
  .p-seat { display: inline-flex; align-items: center; gap: 6px; font-size: 0.875rem; color: var(--_text-2); }
  .p-seat svc-spinner { --svc-spinner-size: 0.9em; }
  .lap { margin-block-start: calc(var(--_space) * 0.75); font-size: 0.875rem; color: var(--_text-2); }

  .notices { display: flex; flex-direction: column; gap: var(--_space); }
  .notice-item { display: flex; flex-direction: column; gap: calc(var(--_space) / 2); }
  .notice-label { font-weight: 600; font-size: 0.875rem; }

  /* The cabin. */
  .map-head { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: var(--_space); }
  .map-title { font-weight: 600; }
  .aircraft, .hint { font-size: 0.8125rem; color: var(--_text-2); }
  .deck-panel { display: flex; flex-direction: column; gap: var(--_space); min-inline-size: 0; }
  .scroller {
    /* The page never scrolls sideways: a cabin wider than the widget scrolls inside this box. */
    max-inline-size: 100%;
    max-block-size: var(--svc-seat-map-height, 70vh);
    overflow: auto;
    overscroll-behavior-inline: contain;
    border: 1px solid var(--_border); border-radius: var(--_radius);
    background: var(--_surface);
  }
  .grid {
    display: flex; flex-direction: column; gap: var(--seat-gap);
    inline-size: max-content; margin-inline: auto;
    padding-block: 0 var(--_space); padding-inline: var(--_space);
  }
  .row { display: flex; align-items: center; gap: var(--seat-gap); }
  .row.head {
    position: sticky; inset-block-start: 0; z-index: 4;
    padding-block: var(--_space) 2px; background: var(--_surface);
  }
  .cell { position: relative; flex: none; inline-size: var(--seat-size); block-size: var(--seat-size); }
  .colhead {
    flex: none; inline-size: var(--seat-size); text-align: center;
    font-size: 0.8125rem; font-weight: 600; color: var(--_text-2);
  }
  .aisle-before { margin-inline-start: calc(var(--seat-aisle)); }
  .rowhead {
    flex: none; inline-size: calc(var(--seat-size) * 0.9); text-align: center;
    font-size: 0.8125rem; font-variant-numeric: tabular-nums; color: var(--_text-2);
  }
  .side { flex: none; align-self: stretch; inline-size: var(--seat-side); display: grid; place-items: center; }
  /* Rows over the wing: the sides shade into one band, as the wing on a real seat map. */
  .row.wing .side { background: var(--seat-wing); margin-block: calc(var(--seat-gap) / -2); }
  .exit-mark { inline-size: 10px; block-size: 10px; color: var(--seat-exit); }
  .row.exit .rowhead { color: var(--seat-exit); font-weight: 700; }

  .seat {
    position: relative; inline-size: 100%; block-size: 100%; padding: 0; cursor: pointer;
    display: grid; place-items: center;
    border: 1.5px solid var(--seat-outline); border-radius: 7px 7px 3px 3px;
    background: var(--_bg); color: var(--_text);
    font-size: 0.75rem; font-weight: 700; line-height: 1;
  }
  .seat.band-0 { background: var(--seat-band-1); }
  .seat.band-1 { background: var(--seat-band-2); }
  .seat.band-2 { background: var(--seat-band-3); }
  /* Extra legroom: a footrest bar under the cushion. */
  .seat.legroom::after {
    content: ''; position: absolute; inset-inline: 3px; inset-block-end: 2px; block-size: 3px;
    border-radius: 2px; background: currentColor;
  }
  .seat.taken { cursor: not-allowed; border-color: var(--_border); background: var(--seat-taken); color: var(--_text-2); }
  .seat.restricted {
    cursor: not-allowed; border-style: dashed;
    background: repeating-linear-gradient(135deg, var(--_bg) 0 4px, var(--_border) 4px 6px);
  }
  .seat.other { cursor: not-allowed; border-color: var(--seat-other); background: var(--seat-other); color: var(--_bg); }
  .seat.selected { border-color: var(--seat-selected); background: var(--seat-selected); color: var(--_on-primary); }
  .seat.busy { cursor: progress; }
  .seat:focus-visible { outline: 2px solid var(--_text); outline-offset: 1px; box-shadow: var(--_focus); z-index: 2; }
  @media (hover: hover) {
    .seat.available:hover { border-color: var(--_primary); border-width: 2.5px; }
  }
  .spin {
    display: inline-block; inline-size: 0.85rem; block-size: 0.85rem;
    border: 2px solid currentColor; border-inline-end-color: transparent; border-radius: 50%;
    animation: seat-spin 0.8s linear infinite;
  }
  @keyframes seat-spin { to { transform: rotate(360deg); } }
  /* Price and state on hover or focus; the accessible name already says it, so this is for the eyes. */
  .tip {
    display: none; position: absolute; z-index: 3; pointer-events: none;
    inset-block-end: calc(100% + 4px); inset-inline-start: 50%; transform: translateX(-50%);
    padding-block: 3px; padding-inline: 6px; border-radius: 4px; white-space: nowrap;
    font-size: 0.75rem; font-weight: 600;
    background: var(--_text); color: var(--_bg);
  }
  .seat:hover .tip, .seat:focus-visible .tip { display: block; }
  /* The first row's tip would hide under the sticky letters: it opens downwards. */
  .row.first .tip { inset-block-end: auto; inset-block-start: calc(100% + 4px); }

  /* Legend. */
  .legend-title { font-weight: 600; font-size: 0.875rem; }
  .legend {
    display: flex; flex-wrap: wrap; gap: calc(var(--_space) * 0.75) calc(var(--_space) * 2);
    margin-block-start: calc(var(--_space) * 0.5); font-size: 0.875rem;
  }
  .legend li { display: inline-flex; align-items: center; gap: 6px; }
  .legend .seat { inline-size: 1.25rem; block-size: 1.25rem; flex: none; cursor: default; }
  .swatch-wing { inline-size: 10px; block-size: 1.25rem; border-radius: 2px; background: var(--seat-wing); }
  .swatch-exit { display: inline-grid; place-items: center; inline-size: 1.25rem; }

  @container (max-width: 420px) {
    .scroller { --seat-size: var(--svc-seat-size-compact, 1.75rem); --seat-gap: 3px; --seat-side: 10px; }
    .grid { padding-inline: 4px; }
  }
  @media (forced-colors: active) {
    .seat.selected, .seat.other { forced-color-adjust: none; background: Highlight; color: HighlightText; border-color: Highlight; }
    .seat.taken, .seat.restricted { border-color: GrayText; color: GrayText; }
    .row.wing .side { background: GrayText; }
  }
`
