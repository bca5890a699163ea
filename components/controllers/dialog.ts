/**
 * Where the card and modal displays' frames plug in. They (../dialog-frames/dialog-frames.ts: the card, the dialog
 * around a view, and `<svc-modal>`) are not needed for the first bag control, so svc.min.js fetches them
 * the first time a view is shown in one of those displays; they register here as they load, and
 * ./display.ts frames its views with them from then on.
 */
import type { BasketItem, ProductName } from '../../client/types.ts'
import type { Locale } from '../i18n/index.ts'
import type { Amount } from '../internal/format.ts'
import type { SessionController } from './session.ts'

/** What the frames read of a view's DisplayController. */
export interface Framed {
  readonly session: SessionController
  /** The dialog is open. */
  readonly open: boolean
  /** One of the view's texts. */
  text(name: 'heading' | 'open' | 'edit' | 'none' | 'empty'): string
  /** The basket items the view sells, not yet paid for; and (`bought`) those an earlier fulfill bought. */
  items(bought?: boolean): BasketItem[]
  /** Something of the view's kind is on sale on this trip. */
  offered(): boolean
  /** The view's icon, if any. */
  icon(): unknown
  /** The panel area in the session's current state. */
  body(): unknown
  /** Opens the dialog. */
  show(): void
  /** The dialog closed (`svc-dialog-close`). */
  readonly close: (e: Event) => void
  /** The dialog's "Done" button. */
  readonly done: () => void
}

/** What the frames read of `<svc-upsell>` in modal display. */
export interface UpsellFramed {
  readonly open: boolean
  readonly l: Locale
  /** The products shown (none while loading, on a load error, or when nothing is on sale). */
  readonly shown: readonly ProductName[]
  /** A product's view, framed in the dialog. */
  view(name: ProductName, framed: boolean): unknown
  /** The widget's state when nothing is shown: loading, error, or nothing on sale. */
  state(): unknown
  /** The total of the extras. */
  total(): Amount
  readonly close: (e: Event) => void
  readonly done: () => void
}

export interface DialogFrames {
  /** The styles of what the frames draw, for the shadow root of each host they draw in. */
  readonly styles: readonly CSSStyleSheet[]
  /** The card display: a summary and the button that opens the dialog (with the dialog). */
  card(view: Framed): unknown
  /** The modal display: the view in the dialog. */
  dialog(view: Framed): unknown
  /** `<svc-upsell>`'s modal display: one dialog with every product's view. */
  upsell(widget: UpsellFramed): unknown
}

let registered: DialogFrames | undefined

/**
 * The frames, once they have arrived. With `root`, the shadow root of a host about to draw with them, their
 * styles join the root's (after its own, once): svc.min.js carries no styles of theirs.
 */
export function dialogFrames(root?: HTMLElement | DocumentFragment): DialogFrames | undefined {
  const r = root as ShadowRoot | undefined
  const sheets = registered?.styles
  // (A browser without constructable stylesheets, where Lit writes <style> elements, has no list to add to.)
  if (sheets && r?.adoptedStyleSheets && !r.adoptedStyleSheets.includes(sheets[0]!))
    r.adoptedStyleSheets = [...r.adoptedStyleSheets, ...sheets]
  return registered
}

/** Called by ../dialog-frames/dialog-frames.ts as it loads. */
export function useDialogFrames(frames: DialogFrames) {
  registered = frames
}
