import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../console/chart.ts'
import type { ChartBucket, ChartSeries, ConsoleChart } from '../../console/chart.ts'
import { axe, cleanup, deepAll, mount, textOf } from '../browser/helpers.ts'

afterEach(cleanup)

const CALLS: ChartSeries[] = [
  { key: 'ok', label: 'OK', tone: 'primary' },
  { key: 'errors', label: 'Errors', tone: 'danger' },
]

async function chart(
  series: ChartSeries[],
  buckets: ChartBucket[],
  o: { mode?: 'stack' | 'group'; unit?: string; width?: number } = {},
) {
  const el = await mount<ConsoleChart>(
    html`<svc-console-chart
      heading="Supplier calls, last hour"
      unit=${o.unit ?? 'calls'}
      mode=${o.mode ?? 'stack'}
      .series=${series}
      .buckets=${buckets}
    ></svc-console-chart>`,
    o.width ? { width: o.width } : {},
  )
  await el.updateComplete
  const root = el.shadowRoot!
  const bars = (key?: string) =>
    [...root.querySelectorAll<SVGRectElement>('rect.bar')].filter((r) => !key || r.dataset.series === key)
  const box = (r: Element) => r.getBoundingClientRect()
  const rows = async () => {
    root.querySelector('details')!.open = true
    return [...root.querySelectorAll('tr')].map((tr) =>
      [...tr.querySelectorAll('th, td')].map((c) => c.textContent!.trim()),
    )
  }
  return { el, root, bars, box, rows }
}

describe('<svc-console-chart>', () => {
  it('stacks each bucket, bar heights proportional to the values, with a legend, a summary and the numbers', async () => {
    const { el, root, bars, box, rows } = await chart(CALLS, [
      { label: '11:00', values: { ok: 4, errors: 0 } },
      { label: '11:05', values: { ok: 2, errors: 2 } },
      { label: '11:10', values: { ok: 0, errors: 0 } },
      { label: '11:15', values: { ok: 1, errors: 0 } },
    ])
    expect(bars().length, 'one bar per value above zero').to.equal(4)
    const [ok0, ok1, ok3] = bars('ok').map(box)
    const [err1] = bars('errors').map(box)
    const plot = box(root.querySelector('svg.bars')!)
    expect(ok0!.height).to.be.closeTo(plot.height, 1, 'the highest stack is the full height')
    expect(ok1!.height).to.be.closeTo(plot.height / 2, 1)
    expect(err1!.height).to.be.closeTo(plot.height / 2, 1)
    expect(ok3!.height).to.be.closeTo(plot.height / 4, 1)
    expect(ok0!.bottom).to.be.closeTo(plot.bottom, 1, 'bars stand on the axis')
    expect(err1!.bottom).to.be.closeTo(ok1!.top, 1, "errors sit on the same bucket's OK calls")
    expect(ok0!.left < ok1!.left && ok1!.left < ok3!.left, 'oldest on the left').to.equal(true)
    expect(err1!.left).to.be.closeTo(ok1!.left, 0.5)

    expect(textOf(root.querySelector('ul.legend')!).replace(/\s+/g, ' ').trim()).to.equal('OK Errors')
    expect(textOf(root.querySelector('figcaption')!)).to.equal('Supplier calls, last hour')
    expect(textOf(root.querySelector('.scale')!)).to.equal('4 calls')
    expect(root.querySelector('svg.bars')!.getAttribute('role')).to.equal('img')
    expect(root.querySelector('svg.bars')!.getAttribute('aria-label')).to.equal(
      'Supplier calls, last hour, 4 bars from 11:00 to 11:15. Totals: OK 7, Errors 2 calls. Highest bar 4 calls.',
    )
    expect(bars('errors')[0]!.querySelector('title')!.textContent).to.equal('11:05: Errors 2 calls')
    expect(await rows()).to.deep.equal([
      ['From', 'OK', 'Errors'],
      ['11:00', '4', '0'],
      ['11:05', '2', '2'],
      ['11:10', '0', '0'],
      ['11:15', '1', '0'],
    ])
    await axe(el)
  })

  it('groups figures side by side from the axis; a missing value is no bar and a dash in the table', async () => {
    const { el, root, bars, box, rows } = await chart(
      [
        { key: 'p50', label: 'p50', tone: 'primary' },
        { key: 'p95', label: 'p95', tone: 'strong' },
      ],
      [
        { label: '11:00', values: { p50: 100, p95: 400 } },
        { label: '11:05', values: { p50: null, p95: null } },
        { label: '11:10', values: { p50: 50, p95: 200 } },
      ],
      { mode: 'group', unit: 'ms' },
    )
    expect(bars().length).to.equal(4)
    const [a50, c50] = bars('p50').map(box)
    const [a95, c95] = bars('p95').map(box)
    const plot = box(root.querySelector('svg.bars')!)
    expect(a95!.height).to.be.closeTo(plot.height, 1)
    expect(a50!.height).to.be.closeTo(plot.height / 4, 1)
    expect(c95!.height).to.be.closeTo(plot.height / 2, 1)
    expect(c50!.height).to.be.closeTo(plot.height / 8, 1)
    for (const b of [a50, a95, c50, c95]) expect(b!.bottom).to.be.closeTo(plot.bottom, 1)
    expect(a95!.left).to.be.closeTo(a50!.right, 0.5, 'p95 beside p50')
    expect(root.querySelector('svg.bars')!.getAttribute('aria-label')).to.equal(
      'Supplier calls, last hour, 3 bars from 11:00 to 11:10. p50 highest 100 ms at 11:00; p95 highest 400 ms at 11:00. Highest bar 400 ms.',
    )
    expect((await rows())[2]).to.deep.equal(['11:05', '—', '—'])
    await axe(el)
  })

  it('says there is nothing rather than drawing an empty chart', async () => {
    const { root } = await chart(CALLS, [{ label: '11:00', values: { ok: 0, errors: 0 } }])
    expect(root.querySelector('svg.bars')).to.equal(null)
    expect(textOf(root.querySelector('figure')!).replace(/\s+/g, ' ').trim()).to.equal(
      'Supplier calls, last hour Nothing in this period.',
    )
  })

  it('draws each tone in its theme colour, the hatched one in stripes', async () => {
    const tones = ['primary', 'success', 'warning', 'danger', 'muted', 'strong', 'hatched'] as const
    const { el, bars } = await chart(
      tones.map((t) => ({ key: t, label: t, tone: t })),
      [{ label: '11:00', values: Object.fromEntries(tones.map((t) => [t, 1])) }],
    )
    const fills = bars().map((r) => getComputedStyle(r).fill)
    expect(fills.slice(0, 6)).to.deep.equal([
      'rgb(11, 95, 255)',
      'rgb(26, 127, 55)',
      'rgb(154, 103, 0)',
      'rgb(207, 34, 46)',
      'rgb(87, 96, 106)',
      'rgb(27, 31, 36)',
    ])
    expect(fills[6]).to.match(/^url\("?#hatch"?\)$/)
    await axe(el)
  })

  it('fits 320 px: the bars scale down, and the numbers scroll inside their own region', async () => {
    const statuses = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    const { el, root, rows } = await chart(
      statuses.map((k) => ({ key: k, label: `Status ${k}`, tone: 'primary' as const })),
      Array.from({ length: 24 }, (_, i) => ({
        label: `${String(i).padStart(2, '0')}:00`,
        values: Object.fromEntries(statuses.map((k) => [k, (i % 5) + 1])),
      })),
      { unit: 'orders', width: 320 },
    )
    const right = el.getBoundingClientRect().right
    const outside = [...root.querySelectorAll('*')].filter(
      (e) => !e.closest('.numbers') && e.getBoundingClientRect().right > right + 1,
    )
    expect(
      outside.map((e) => e.localName),
      'nothing but the numbers is wider than 320 px',
    ).to.deep.equal([])
    expect(root.querySelector('svg.bars')!.getBoundingClientRect().width).to.be.at.most(320)
    expect((await rows()).length).to.equal(25)
    await el.updateComplete
    const region = root.querySelector<HTMLElement>('.numbers')!
    expect(region.scrollWidth, 'the table is wider than 320 px').to.be.greaterThan(region.clientWidth)
    expect(el.scrollWidth).to.be.at.most(el.clientWidth)
    expect(region.tabIndex, 'reachable by keyboard to scroll').to.equal(0)
    await axe(el)
  })

  it('shows labels from data as text', async () => {
    const { root } = await chart(
      [{ key: 'x', label: '<img src=x onerror=alert(1)>', tone: 'primary' }],
      [{ label: '<b>11:00</b>', values: { x: 1 } }],
    )
    expect(deepAll(root, 'img, b').length).to.equal(0)
    expect(textOf(root.querySelector('ul.legend')!).trim()).to.equal('<img src=x onerror=alert(1)>')
  })
})
