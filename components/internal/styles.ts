/**
 * Styles shared by the svc views: buttons, alerts, badges, skeletons and headings (the visually hidden
 * text is every element's, in ../theme.ts; the card display's styles come with the dialog frames:
 * ../dialog-frames/dialog-frames.styles.ts).
 * Logical properties only (margin-inline-start, not margin-left), so RTL needs nothing.
 */
import { css } from 'lit'

export const sharedStyles = css`
  :host { display: block; font-size: 1rem; line-height: 1.45; }
  :host([hidden]) { display: none; }

  h2, h3, h4, p, ul { margin: 0; }
  ul { padding: 0; list-style: none; }
  h2 { font-size: 1.25rem; line-height: 1.3; font-weight: 650; }
  h3 { font-size: 1.0625rem; line-height: 1.35; font-weight: 650; }
  h4 { font-size: 1rem; font-weight: 600; }

  .muted { color: var(--_text-2); }
  .view { display: flex; flex-direction: column; gap: calc(var(--_space) * 2); min-inline-size: 0; overflow-wrap: anywhere; }
  /* Inline on the seller's page the view brings its own background, so dark-mode text never lands on a light page. */
  section.view { padding: calc(var(--_space) * 2); border-radius: var(--_radius); background: var(--_bg); color: var(--_text); }

  /* Buttons: 44 px targets; aria-disabled (never disabled) keeps focus on a control that is only waiting. */
  .btn {
    display: inline-flex; align-items: center; justify-content: center; gap: var(--_space);
    min-block-size: 2.75rem; padding-block: calc(var(--_space) * 0.75); padding-inline: calc(var(--_space) * 2);
    border: 1px solid var(--_text-2); border-radius: var(--_radius);
    background: var(--_bg); color: var(--_text);
    font: inherit; font-weight: 600; line-height: 1.2; text-align: center; cursor: pointer;
    transition: background-color 120ms, border-color 120ms;
  }
  .btn:hover { background: var(--_surface); }
  .btn.primary { background: var(--_primary); border-color: var(--_primary); color: var(--_on-primary); }
  .btn.primary:hover { background: color-mix(in srgb, var(--_primary) 88%, var(--_text)); }
  .btn[aria-disabled='true'] { opacity: 0.45; cursor: not-allowed; }
  .btn[aria-disabled='true']:hover { background: var(--_bg); }
  .btn.primary[aria-disabled='true']:hover { background: var(--_primary); }
  .actions { display: flex; flex-wrap: wrap; gap: var(--_space); }

  /* States of items and views. */
  .notice {
    display: flex; flex-direction: column; gap: var(--_space);
    padding: calc(var(--_space) * 1.5); border-radius: var(--_radius);
    border: 1px solid var(--_border); border-inline-start-width: 4px; background: var(--_bg);
  }
  .notice.warning { border-inline-start-color: var(--_warning); }
  .notice.danger { border-inline-start-color: var(--_danger); }
  .notice p { margin: 0; }
  .notice .title { display: block; font-weight: 600; }
  .empty {
    display: flex; flex-direction: column; align-items: flex-start; gap: var(--_space);
    padding: calc(var(--_space) * 2); border: 1px dashed var(--_border); border-radius: var(--_radius);
    background: var(--_surface);
  }

  .badge {
    display: inline-flex; align-items: center; gap: 0.35em; padding-block: 0.1em; padding-inline: 0.6em;
    border: 1px solid currentColor; border-radius: 999px; font-size: 0.8125rem; font-weight: 600; white-space: nowrap;
  }
  .badge::before { content: ''; inline-size: 0.5em; block-size: 0.5em; border-radius: 50%; background: var(--_dot, currentColor); }
  .badge.ok { color: var(--_success); }

  /* Loading: a skeleton of the panel, the words beside it. */
  .skeleton { display: flex; flex-direction: column; gap: calc(var(--_space) * 1.5); }
  .skeleton .bar {
    block-size: 1rem; border-radius: calc(var(--_radius) / 2);
    background: linear-gradient(90deg, var(--_surface) 0%, var(--_border) 50%, var(--_surface) 100%);
    background-size: 200% 100%; animation: svc-shimmer 1.4s ease-in-out infinite;
  }
  .skeleton .bar.title { inline-size: 45%; block-size: 1.25rem; }
  .skeleton .bar.short { inline-size: 30%; }
  .skeleton .bar.block { block-size: 3rem; }
  @keyframes svc-shimmer { from { background-position: 100% 0; } to { background-position: -100% 0; } }

  /* A view's heading (the dialog frames' card has it too). */
  .card-title { display: flex; align-items: center; gap: var(--_space); }
  .card-title svg { flex: none; color: var(--_primary); }
`
