/**
 * Flight dates and times as the ticket shows them: at the airport's own clock. The API answers every
 * segment time in its airport's UTC offset (`2027-08-07T23:30:00-07:00` for a PDX departure that is
 * `2027-08-08T06:30:00Z`), and the widgets' formatter (components/i18n/index.ts `date`, `time`) reads the
 * wall clock written in that text, never the instant, so a traveller in any time zone, and the widget's
 * UTC-based Intl formats, agree with the boarding pass.
 *
 * The widget therefore RELIES on the server's offset form: given `…Z` it shows the UTC clock, which is the
 * airport's only at an airport on UTC. The last test pins that, so a change in either place is seen.
 *
 * Where a widget shows a flight's date: the journey titles of the bag and option views, the seat map's
 * flight tabs. No widget shows a time of day yet; the Locale's `time` is checked directly.
 */
import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import { localeFor } from '../../../components/i18n/index.ts'
import { rewriteJson, urlOf } from '../../../mock-server/conditions.ts'
import type { TripView } from '../../../client/types.ts'
import { cleanup, deep, deepAll, mount, session, settle, until } from '../helpers.ts'

afterEach(cleanup)

/** The PDX departure of the example: 23:30 on Saturday 7 August at the airport, 06:30 on Sunday in UTC. */
const AT_AIRPORT = '2027-08-07T23:30:00-07:00'
const IN_UTC = '2027-08-08T06:30:00Z'

/** The trip as the API answers it, with the first flight's departure time written as `departure`. */
function departingAt(departure: string): typeof fetch {
  return async (input, init) => {
    const res = await window.fetch(input, init)
    if (!/\/trip\/[^/]+$/.test(urlOf(input).pathname)) return res
    return rewriteJson(res, (trip: TripView) => {
      trip.journeys[0]!.segments[0]!.departure_time = departure
      return trip
    })
  }
}

/** The texts where the widgets show the first flight's date: the bag and option views' first journey title, the seat map's first flight tab. */
async function datesShown(departure: string): Promise<string[]> {
  // A trip in en-US, whose dates read "Sat, Aug 7" (the fixture's default, en-GB, reads "Sat 7 Aug").
  const s = await session({ language: 'en-US', fetch: departingAt(departure) })
  expect(s.state.trip!.journeys[0]!.segments[0]!.departure_time).to.equal(departure)
  const el = await mount(html`<div>
    <svc-bag-upsell .session=${s}></svc-bag-upsell>
    <svc-option-card product="priority_boarding" .session=${s}></svc-option-card>
    <svc-seat-map .session=${s}></svc-seat-map>
  </div>`)
  const seatTab = await until(() => deep(el.querySelector('svc-seat-map')!, '.tab-sub'), "the seat map's flight tab")
  await settle(el)
  const title = (tag: string) => deepAll(el.querySelector(tag)!, '[part=journey-title]')[0]!.textContent!.trim()
  return [title('svc-bag-upsell'), title('svc-option-card'), seatTab.textContent!.replace(/\s+/g, ' ').trim()]
}

describe('flight dates and times at the airport', () => {
  it(`a departure at ${AT_AIRPORT} reads Sat, Aug 7 wherever a widget shows the flight's date`, async function () {
    this.timeout(30_000)
    const [bags, options, seats] = await datesShown(AT_AIRPORT)
    expect(bags).to.equal('London → New York City · Sat, Aug 7')
    expect(options).to.equal('London → New York City · Sat, Aug 7')
    expect(seats).to.match(/^BA \d+ · Sat, Aug 7$/)
  })

  it(`the formatter reads ${AT_AIRPORT} as Sat, Aug 7 at 23:30 (11:30 PM in en-US), not the instant (Sun 06:30 UTC)`, () => {
    const us = localeFor('en-US')
    expect(us.date(AT_AIRPORT)).to.equal('Sat, Aug 7')
    expect(us.time(AT_AIRPORT)).to.equal('11:30 PM')
    expect(localeFor('en-GB').time(AT_AIRPORT)).to.equal('23:30')
    // A time at an airport east of UTC, for the other sign: 00:15 on Sunday in Tokyo is still Saturday in UTC.
    expect(us.date('2027-08-08T00:15:00+09:00')).to.equal('Sun, Aug 8')
    expect(localeFor('en-GB').time('2027-08-08T00:15:00+09:00')).to.equal('00:15')
  })

  it(`the same departure sent as ${IN_UTC} reads Sun, Aug 8 at 06:30: the widget shows the airport's day only when the server sends the offset form`, async function () {
    this.timeout(30_000)
    // Not what a traveller at PDX should see: the widget cannot know the airport's offset, so the API
    // converts (the offset form) and the widget takes the clock as written.
    const [bags, , seats] = await datesShown(IN_UTC)
    expect(bags).to.equal('London → New York City · Sun, Aug 8')
    expect(seats).to.match(/^BA \d+ · Sun, Aug 8$/)
    expect(localeFor('en-GB').time(IN_UTC)).to.equal('06:30')
  })
})
