/**
 * <svc-console-chart>: bars over time, for what a person would rather look at than read (the seller's
 * supplier calls and times, orders by status). Stacked (parts of one whole: ok and failed calls, orders by
 * status) or grouped (figures side by side: p50 and p95).
 *
 * Drawn in SVG with no library: the bars scale with the viewBox to any width (320 px included), their
 * colours are the theme's tokens (each at least 3:1 on the background, and stacked parts parted by a line of
 * background), and colour is never the only way in: the legend names each series in text, one tone is
 * hatched besides, each bar has a title, the SVG's label sums the chart up, and the numbers are in a table
 * under "Show the numbers". Text from the data is text (Lit escapes it).
 */
import { LitElement, css, html, svg } from 'lit'
import { tokenVars } from '../components/theme.ts'

/** A theme token each series is drawn in; `hatched` is the text colour in stripes. */
export type Tone = 'primary' | 'success' | 'warning' | 'danger' | 'muted' | 'strong' | 'hatched'

export interface ChartSeries {
  key: string
  label: string
  tone: Tone
}

/** One bar (stacked) or group of bars: its label (a time) and a value per series key; null is no value. */
export interface ChartBucket {
  label: string
  values: Record<string, number | null>
}

/** The viewBox: one slot of SLOT units per bucket, bars BAR units wide, HEIGHT units at the highest value. */
const SLOT = 10
const BAR = 8
const HEIGHT = 100

const valueOf = (b: ChartBucket, s: ChartSeries) => b.values[s.key] ?? 0
/** Numbers as a person reads them: whole, with a thousands separator. */
const shown = (n: number | null | undefined) =>
  n === null || n === undefined ? '—' : Math.round(n).toLocaleString('en-GB')

interface Bar {
  series: ChartSeries
  bucket: ChartBucket
  value: number
  x: number
  y: number
  width: number
  height: number
}

export class ConsoleChart extends LitElement {
  static override styles = [
    tokenVars,
    css`
      :host { display: block; }
      figure { margin: 0 0 calc(var(--_space) * 2); min-width: 0; }
      figcaption { font-weight: 600; margin-bottom: var(--_space); }
      ul.legend { list-style: none; margin: 0 0 var(--_space); padding: 0; display: flex; flex-wrap: wrap; gap: 4px calc(var(--_space) * 2); }
      ul.legend li { display: inline-flex; align-items: center; gap: 6px; }
      .swatch { inline-size: 14px; block-size: 14px; flex: none; }
      .plot { border-inline-start: 1px solid var(--_text-2); border-block-end: 1px solid var(--_text-2); }
      svg.bars { display: block; inline-size: 100%; block-size: 10rem; }
      rect.bar { stroke: var(--_bg); stroke-width: 1px; vector-effect: non-scaling-stroke; }
      .tone-primary { fill: var(--_primary); }
      .tone-success { fill: var(--_success); }
      .tone-warning { fill: var(--_warning); }
      .tone-danger { fill: var(--_danger); }
      .tone-muted { fill: var(--_text-2); }
      .tone-strong { fill: var(--_text); }
      .tone-hatched { fill: url(#hatch); }
      svg.defs { position: absolute; inline-size: 0; block-size: 0; overflow: hidden; }
      .pattern-line { stroke: var(--_text); stroke-width: 1.5; }
      .scale, .axis { color: var(--_text-2); font-size: 0.85rem; }
      .axis { display: flex; justify-content: space-between; gap: var(--_space); margin-top: 2px; }
      details { margin-top: var(--_space); }
      summary { cursor: pointer; color: var(--_primary); padding: 6px 0; min-block-size: 24px; }
      .numbers { overflow-x: auto; max-inline-size: 100%; }
      table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
      th, td { padding: 2px var(--_space); text-align: end; border-block-end: 1px solid var(--_border); white-space: nowrap; }
      th[scope='row'], thead th:first-child { text-align: start; }
      .muted { color: var(--_text-2); margin: 0; }
    `,
  ]

  static override properties = {
    heading: {},
    unit: {},
    mode: {},
    empty: {},
    series: { attribute: false },
    buckets: { attribute: false },
  }

  /** What the chart shows, e.g. "Supplier calls, last hour": its caption, and the start of its summary. */
  heading = ''
  /** What the values count, after a number: "calls", "ms", "orders". */
  unit = ''
  mode: 'stack' | 'group' = 'stack'
  /** Said instead of an empty chart. */
  empty = 'Nothing in this period.'
  series: ChartSeries[] = []
  buckets: ChartBucket[] = []

  /** The highest bar (stacked: the highest sum), which is the chart's full height. */
  private get max(): number {
    const heights = this.buckets.map((b) =>
      this.mode === 'stack'
        ? this.series.reduce((n, s) => n + valueOf(b, s), 0)
        : Math.max(0, ...this.series.map((s) => valueOf(b, s))),
    )
    return Math.max(0, ...heights)
  }

  private bars(max: number): Bar[] {
    const scale = (v: number) => (v / max) * HEIGHT
    return this.buckets.flatMap((bucket, i) => {
      let base = HEIGHT
      const width = this.mode === 'stack' ? BAR : BAR / this.series.length
      return this.series.flatMap((series, j) => {
        const value = valueOf(bucket, series)
        if (value <= 0) return []
        const height = scale(value)
        const x = i * SLOT + (SLOT - BAR) / 2 + (this.mode === 'stack' ? 0 : j * width)
        const y = this.mode === 'stack' ? (base -= height) : HEIGHT - height
        return [{ series, bucket, value, x, y, width, height }]
      })
    })
  }

  /** The chart in a sentence: each series' total (stacked) or highest value (grouped), over which times. */
  private summary(max: number): string {
    const first = this.buckets[0]?.label ?? ''
    const last = this.buckets.at(-1)?.label ?? ''
    const figures = this.series.map((s) => {
      const values = this.buckets.map((b) => valueOf(b, s))
      if (this.mode === 'stack') return `${s.label} ${shown(values.reduce((a, b) => a + b, 0))}`
      const top = Math.max(...values)
      return `${s.label} highest ${shown(top)} ${this.unit} at ${this.buckets[values.indexOf(top)]!.label}`
    })
    const totals = this.mode === 'stack' ? `Totals: ${figures.join(', ')} ${this.unit}` : figures.join('; ')
    return `${this.heading}, ${this.buckets.length} bars from ${first} to ${last}. ${totals}. Highest bar ${shown(max)} ${this.unit}.`
  }

  private swatch(tone: Tone) {
    return html`<svg class="swatch" viewBox="0 0 14 14" aria-hidden="true" focusable="false">
      <rect class="tone-${tone}" width="14" height="14"></rect>
    </svg>`
  }

  private table() {
    return html`<details>
      <summary>Show the numbers</summary>
      <div class="numbers" role="region" tabindex="0" aria-label="${this.heading}: the numbers">
        <table>
          <caption class="sr-only">${this.heading} (${this.unit})</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              ${this.series.map((s) => html`<th scope="col">${s.label}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${this.buckets.map(
              (b) =>
                html`<tr>
                  <th scope="row">${b.label}</th>
                  ${this.series.map((s) => html`<td>${shown(b.values[s.key])}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>`
  }

  override render() {
    const max = this.max
    if (max === 0)
      return html`<figure>
        <figcaption>${this.heading}</figcaption>
        <p class="muted">${this.empty}</p>
      </figure>`
    const width = this.buckets.length * SLOT
    return html`<figure>
      <figcaption>${this.heading}</figcaption>
      <ul class="legend" aria-label="Legend">
        ${this.series.map((s) => html`<li>${this.swatch(s.tone)}<span>${s.label}</span></li>`)}
      </ul>
      <div class="scale" aria-hidden="true">${shown(max)} ${this.unit}</div>
      <div class="plot">
        <svg class="bars" viewBox="0 0 ${width} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label=${this.summary(max)}>
          ${this.bars(max).map(
            (b) =>
              svg`<rect class="bar tone-${b.series.tone}" data-series=${b.series.key} x=${b.x} y=${b.y} width=${b.width}
                height=${b.height}><title>${b.bucket.label}: ${b.series.label} ${shown(b.value)} ${this.unit}</title></rect>`,
          )}
        </svg>
      </div>
      <div class="axis" aria-hidden="true">
        <span>${this.buckets[0]?.label}</span><span>${this.buckets.at(-1)?.label}</span>
      </div>
      <svg class="defs" aria-hidden="true" focusable="false">
        <defs>
          <pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <line class="pattern-line" x1="0" y1="0" x2="0" y2="4"></line>
          </pattern>
        </defs>
      </svg>
      ${this.table()}
    </figure>`
  }
}
customElements.define('svc-console-chart', ConsoleChart)
