/**
 * The styles of what the dialog frames draw in a product view's shadow root (the card, the summary, the
 * dialog's footer, and `<svc-upsell>`'s sections), adopted there after the view's own (../controllers/dialog.ts), with
 * the summary's (../internal/item-summary.ts).
 */
import { css } from 'lit'

export const styles = css`
  .card {
    display: flex; flex-wrap: wrap; align-items: center; gap: calc(var(--_space) * 2);
    padding: calc(var(--_space) * 2); border: 1px solid var(--_border); border-radius: var(--_radius);
    background: var(--_bg); overflow-wrap: anywhere;
  }
  .card-main { flex: 1 1 14rem; min-inline-size: 0; display: flex; flex-direction: column; gap: var(--_space); }
  .card > .btn { flex: 0 0 auto; }
  .summary { display: flex; flex-direction: column; gap: var(--_space); }
  .summary li { display: flex; flex-wrap: wrap; justify-content: space-between; gap: var(--_space); }
  .summary .what { min-inline-size: 0; }
  .summary .context { display: block; color: var(--_text-2); font-size: 0.875rem; }
  .card .notices { display: flex; flex-direction: column; gap: var(--_space); flex-basis: 100%; }

  .footer { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: calc(var(--_space) * 2); inline-size: 100%; }
  .footer .total-line { gap: var(--_space); justify-content: flex-start; }

  .sections { display: flex; flex-direction: column; gap: calc(var(--_space) * 4); }
  .section { display: flex; flex-direction: column; gap: calc(var(--_space) * 1.5); }
  .section + .section { padding-block-start: calc(var(--_space) * 3); border-block-start: 1px solid var(--_border); }
`
