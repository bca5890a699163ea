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
    /* The gaps, aisles, edges and row numbers scale with the widget's width (cqi: of .seat-map, the
       container), and the seats take what is left, from --seat-size down to --seat-min (flex, below): on
       a 320 px phone, 9 abreast get about 26 px a seat and 10 abreast 24 px, with no measuring in script. */
    --seat-size: var(--svc-seat-size, 2rem);
    --seat-min: var(--svc-seat-size-min, 24px);
    --seat-gap: var(--svc-seat-gap, clamp(2px, 1cqi - 1px, 4px));
    --seat-aisle: var(--svc-seat-aisle, clamp(6px, 2.5cqi - 2px, var(--seat-size) * 0.6));
    --seat-side: clamp(4px, 2cqi - 2px, 14px);
    --seat-row: clamp(1rem, 5cqi, var(--seat-size) * 0.9);
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
    /* The page never scrolls sideways: a cabin wider than the widget even at --seat-min scrolls inside
       this box, its row numbers kept in view (sticky) and its cut edges faded (below). The padding keeps
       a seat reached by the keyboard out from under the sticky row numbers and letters. */
    max-block-size: var(--svc-seat-map-height, 70vh);
    overflow: auto;
    overscroll-behavior-inline: contain;
    scroll-padding: 2rem 1.5rem 0 2.5rem;
    border: 1px solid var(--_border); border-radius: var(--_radius);
    background: var(--_surface);
  }
  /* In a narrow widget the cabin's box takes half the margin around it (the section's, or the dialog's:
     twice the space, in every display), since the seats need the width more than the margin does. */
  @container (max-width: 420px) { .scroller { margin-inline: calc(var(--_space) * -1); } }
  /* As wide as the box, or as its rows at their smallest when that is wider (then the box scrolls). */
  .grid {
    display: flex; flex-direction: column; gap: var(--seat-gap);
    min-inline-size: min-content;
    padding-block: 0 var(--_space); padding-inline: clamp(0px, 3cqi - 10px, 8px);
  }
  /* A deck's cabins (a real airline's map: Business, then Economy) one after the other in the box, each
     named; the name stays in view when the box scrolls sideways (the box is left to right). */
  .cabin-name {
    position: sticky; left: 0; z-index: 5; inline-size: fit-content; max-inline-size: 100%;
    margin-block: var(--_space) 0; padding-inline: var(--_space);
    font-weight: 600; font-size: 0.875rem; overflow-wrap: anywhere;
  }
  .cabin-name ~ .cabin-name { margin-block-start: calc(var(--_space) * 1.5); padding-block-start: var(--_space); }
  /* Every row has the same cells with the same flex, so the columns line up in every row. */
  .row { display: flex; align-items: center; justify-content: center; gap: var(--seat-gap); }
  .row.head {
    position: sticky; inset-block-start: 0; z-index: 4;
    padding-block: var(--_space) 2px; background: var(--_surface);
  }
  .cell, .colhead { position: relative; flex: 0 1 var(--seat-size); min-inline-size: var(--seat-min); }
  .colhead { text-align: center; font-size: 0.8125rem; font-weight: 600; color: var(--_text-2); }
  .aisle-before { margin-inline-start: var(--seat-aisle); }
  .rowhead {
    flex: none; inline-size: var(--seat-row); text-align: center;
    font-size: min(0.8125rem, 4cqi); font-variant-numeric: tabular-nums; white-space: nowrap; color: var(--_text-2);
    position: sticky; inset-inline-start: 0; z-index: 3; background: var(--_surface);
  }
  .side { flex: none; align-self: stretch; inline-size: var(--seat-side); display: grid; place-items: center; }
  .row > .side:last-child { position: sticky; inset-inline-end: 0; z-index: 3; --fade: -10px; }
  /* Rows over the wing: the sides shade into one band, as the wing on a real seat map. */
  .row.wing .side { background: var(--seat-wing); margin-block: calc(var(--seat-gap) / -2); }
  .exit-mark { inline-size: 100%; max-inline-size: 10px; block-size: auto; aspect-ratio: 1; color: var(--seat-exit); }
  .row.exit .rowhead { color: var(--seat-exit); font-weight: 700; }
  /* Where the box scrolls sideways, the seats fade out under the row numbers, and at the far edge, while
     there is more to see that way (a scroll-driven animation: none at all when the cabin fits). It moves
     only with the traveller's own scrolling, so it keeps its duration under reduced motion (tokenVars
     sets every animation's to 0s there, which would pin the fades to their end). */
  @supports (animation-timeline: scroll()) {
    .rowhead, .row > .side:last-child { animation: seat-fade linear both; animation-timeline: scroll(nearest x); animation-duration: auto !important; }
    .row > .side:last-child { animation-direction: reverse; }
  }
  @keyframes seat-fade { from { box-shadow: none; } 3%, to { box-shadow: var(--fade, 10px) 0 8px 2px var(--_surface); } }

  .seat {
    position: relative; inline-size: 100%; aspect-ratio: 1; padding: 0; cursor: pointer;
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
  /* Only a pointer that hovers opens a tip: after a tap, a touch screen would leave it over the row above. */
  @media (hover: hover) {
    .seat.available:hover { border-color: var(--_primary); border-width: 2.5px; }
    .seat:hover .tip { display: block; }
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
    inline-size: max-content; max-inline-size: 8rem; text-align: center;
    padding-block: 3px; padding-inline: 6px; border-radius: 4px;
    font-size: 0.75rem; font-weight: 600;
    background: var(--_text); color: var(--_bg);
  }
  /* A tip with the airline's notices about the seat: wider, the notices one per line. */
  .tip.long { max-inline-size: 13rem; text-align: start; }
  .tip .note { display: block; font-weight: 400; }
  /* The outer three seats of a row open their tip inwards, so it stays in a cabin as wide as the widget. */
  .cell:nth-child(-n+5) .tip { inset-inline-start: 0; transform: none; }
  .cell:nth-last-child(-n+4) .tip { inset-inline-start: auto; inset-inline-end: 0; transform: none; }
  .seat:focus-visible .tip { display: block; }
  /* The first row's tip would hide under the sticky letters: it opens downwards. */
  .row.first .tip { inset-block-end: auto; inset-block-start: calc(100% + 4px); }

  /* The airline's notices about the seat last focused or tapped. */
  .seat-notes {
    padding-block: calc(var(--_space) * 0.75); padding-inline: var(--_space);
    border-inline-start: 3px solid var(--_primary); border-radius: calc(var(--_radius) / 2);
    background: var(--_surface); font-size: 0.875rem; overflow-wrap: anywhere;
  }
  .seat-notes .notes-title { font-weight: 600; }
  .seat-notes ul { margin: 0; padding-inline-start: 1.25em; list-style: disc; }

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

  @media (forced-colors: active) {
    .seat.selected, .seat.other { forced-color-adjust: none; background: Highlight; color: HighlightText; border-color: Highlight; }
    .seat.taken, .seat.restricted { border-color: GrayText; color: GrayText; }
    .row.wing .side { background: GrayText; }
  }
`
