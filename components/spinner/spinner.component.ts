import { html, LitElement } from 'lit'
import { property } from '../internal/element.ts'
import { tokenVars } from '../theme.ts'
import { styles } from './spinner.styles.ts'

/**
 * A progress indicator with its words: a `status` region, so assistive technology announces the label
 * when the spinner appears (an item being checked, a view loading).
 *
 * @csspart ring - The turning ring.
 * @csspart label - The text beside it.
 * @cssproperty --svc-spinner-size - Diameter of the ring (default 1.25em).
 * @cssproperty --svc-color-primary - Colour of the turning arc.
 * @tagname svc-spinner
 */
export class SvcSpinner extends LitElement {
  static override styles = [tokenVars, styles]

  /** What is in progress, e.g. "Checking availability…". */
  @property() label = ''
  /** Keep the label for assistive technology only. */
  @property({ type: Boolean, attribute: 'hide-label', reflect: true }) hideLabel = false

  override connectedCallback() {
    super.connectedCallback()
    if (!this.hasAttribute('role')) this.setAttribute('role', 'status')
  }

  override render() {
    return html`<span class="ring" part="ring" aria-hidden="true"></span><span part="label" class=${this.hideLabel ? 'sr-only' : 'label'}>${this.label}</span>`
  }
}
