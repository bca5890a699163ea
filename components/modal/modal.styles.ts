import { css } from 'lit'

export const styles = css`
  :host { display: contents; }
  dialog {
    inline-size: min(var(--svc-modal-width, 40rem), calc(100vw - 2rem));
    max-inline-size: none; max-block-size: min(90dvh, calc(100dvh - 2rem));
    padding: 0; border: 1px solid var(--_border); border-radius: calc(var(--_radius) * 1.5);
    background: var(--_bg); color: var(--_text); font-family: var(--_font);
    box-shadow: 0 24px 48px rgb(0 0 0 / 25%);
    overflow: hidden;
  }
  dialog[open] { display: flex; flex-direction: column; animation: svc-in 160ms ease-out; }
  dialog::backdrop { background: rgb(15 20 25 / 55%); }
  header {
    display: flex; align-items: center; justify-content: space-between; gap: calc(var(--_space) * 2);
    padding-block: calc(var(--_space) * 1.5); padding-inline: calc(var(--_space) * 2.5) calc(var(--_space) * 1.5);
    border-block-end: 1px solid var(--_border); flex: none;
  }
  .title { margin: 0; font-size: 1.25rem; line-height: 1.3; font-weight: 650; min-inline-size: 0; overflow-wrap: anywhere; }
  .title:focus { outline: none; box-shadow: none; }
  .close {
    flex: none; display: inline-grid; place-items: center; inline-size: 2.75rem; block-size: 2.75rem;
    border: 1px solid transparent; border-radius: var(--_radius); background: transparent; color: var(--_text); cursor: pointer;
  }
  .close:hover { background: var(--_surface); }
  .body { flex: 1 1 auto; min-block-size: 0; overflow: auto; overscroll-behavior: contain; padding: calc(var(--_space) * 2.5); }
  footer { flex: none; display: flex; padding-block: calc(var(--_space) * 1.5); padding-inline: calc(var(--_space) * 2.5); border-block-start: 1px solid var(--_border); background: var(--_surface); }
  footer[hidden] { display: none; }
  @media (max-width: 480px) {
    dialog { inline-size: 100vw; max-block-size: 100dvh; block-size: 100dvh; margin: 0; border: 0; border-radius: 0; }
    .body { padding: calc(var(--_space) * 2); }
  }
  @keyframes svc-in { from { opacity: 0; transform: translateY(8px); } }
`
