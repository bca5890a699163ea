/**
 * Every shipped locale in the embedded bag view, with tables registered the way a bundler user does
 * (`import de from …/locales/de-DE.js; addLocale('de-DE', de)`): the texts are the locale's, no
 * `{placeholder}` is left in the page or in an accessible name, and the long German, French and Arabic
 * texts fit 320 px without horizontal scrolling, with a bag chosen (stepper, "Maximum", badges) and without.
 *
 * Then flight dates and times, which the Locale (components/i18n/index.ts `date`, `time`) reads at the airport's
 * clock.
 */
import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import { addLocale, LOCALES, type Strings, localeFor } from '../../../components/i18n/index.ts'
import { enUS } from '../../../components/i18n/en-US.ts'
import arEG from '../../../components/i18n/locales/ar-EG.ts'
import arSA from '../../../components/i18n/locales/ar-SA.ts'
import daDK from '../../../components/i18n/locales/da-DK.ts'
import deDE from '../../../components/i18n/locales/de-DE.ts'
import elGR from '../../../components/i18n/locales/el-GR.ts'
import enAU from '../../../components/i18n/locales/en-AU.ts'
import enCA from '../../../components/i18n/locales/en-CA.ts'
import enGB from '../../../components/i18n/locales/en-GB.ts'
import esES from '../../../components/i18n/locales/es-ES.ts'
import etEE from '../../../components/i18n/locales/et-EE.ts'
import fiFI from '../../../components/i18n/locales/fi-FI.ts'
import frFR from '../../../components/i18n/locales/fr-FR.ts'
import idID from '../../../components/i18n/locales/id-ID.ts'
import itIT from '../../../components/i18n/locales/it-IT.ts'
import jaJP from '../../../components/i18n/locales/ja-JP.ts'
import koKR from '../../../components/i18n/locales/ko-KR.ts'
import ltLT from '../../../components/i18n/locales/lt-LT.ts'
import lvLV from '../../../components/i18n/locales/lv-LV.ts'
import nbNO from '../../../components/i18n/locales/nb-NO.ts'
import nlNL from '../../../components/i18n/locales/nl-NL.ts'
import plPL from '../../../components/i18n/locales/pl-PL.ts'
import ptPT from '../../../components/i18n/locales/pt-PT.ts'
import roRO from '../../../components/i18n/locales/ro-RO.ts'
import svSE from '../../../components/i18n/locales/sv-SE.ts'
import thTH from '../../../components/i18n/locales/th-TH.ts'
import trTR from '../../../components/i18n/locales/tr-TR.ts'
import viVN from '../../../components/i18n/locales/vi-VN.ts'
import zhCN from '../../../components/i18n/locales/zh-CN.ts'
import zhHK from '../../../components/i18n/locales/zh-HK.ts'
import {
  addBag,
  axe,
  cleanup,
  deep,
  deepAll,
  expectNoOverflow,
  mount,
  session,
  textOf,
  until,
  settle,
} from '../../browser/helpers.ts'
import { rewriteJson, urlOf } from '../../../mock-server/conditions.ts'
import type { TripView } from '../../../client/types.ts'

const TABLES: Record<string, Strings> = {
  'en-US': enUS,
  'ar-EG': arEG,
  'ar-SA': arSA,
  'da-DK': daDK,
  'de-DE': deDE,
  'el-GR': elGR,
  'en-AU': enAU,
  'en-CA': enCA,
  'en-GB': enGB,
  'es-ES': esES,
  'et-EE': etEE,
  'fi-FI': fiFI,
  'fr-FR': frFR,
  'id-ID': idID,
  'it-IT': itIT,
  'ja-JP': jaJP,
  'ko-KR': koKR,
  'lt-LT': ltLT,
  'lv-LV': lvLV,
  'nb-NO': nbNO,
  'nl-NL': nlNL,
  'pl-PL': plPL,
  'pt-PT': ptPT,
  'ro-RO': roRO,
  'sv-SE': svSE,
  'th-TH': thTH,
  'tr-TR': trTR,
  'vi-VN': viVN,
  'zh-CN': zhCN,
  'zh-HK': zhHK,
}
for (const [tag, table] of Object.entries(TABLES)) if (tag !== 'en-US') addLocale(tag, table)

afterEach(cleanup)

/** The page text and every accessible name and title under `el`. */
const everything = (el: Element) =>
  [
    textOf(el),
    ...deepAll(el, '[aria-label], [title]').flatMap((e) => [
      e.getAttribute('aria-label') ?? '',
      e.getAttribute('title') ?? '',
    ]),
  ].join(' ')

describe('every locale in the embedded bag view', () => {
  it('covers exactly the shipped locales', () => {
    expect(Object.keys(TABLES).sort()).to.deep.equal([...LOCALES].sort())
  })

  for (const tag of LOCALES) {
    it(`${tag}: its own texts, no braces, fits 320 px`, async () => {
      const t = TABLES[tag]!
      const s = await session({ language: tag })
      const el = await mount(html`<svc-bag-upsell .session=${s}></svc-bag-upsell>`, { width: 320 })
      expect(el.lang).to.equal(tag)
      expect(el.dir).to.equal(tag.startsWith('ar-') ? 'rtl' : 'ltr')
      expect(deep(el, 'h2')!.textContent).to.contain(t.bags_title)
      expect(textOf(el)).to.contain(t.bag_checked).and.contain(t.infant_on_lap)
      expect(everything(el), 'placeholder braces in the page').not.to.match(/[{}]/)
      expectNoOverflow(el.parentElement!)

      // With a bag chosen the passenger row grows: a quantity, "Maximum n" for the infant, a state badge.
      await addBag(s)
      await addBag(s, 'p3')
      await until(() => deep(el, '.limit'), 'the quantity limit note')
      expect(everything(el), 'placeholder braces with bags chosen').not.to.match(/[{}]/)
      expectNoOverflow(el.parentElement!)
      if (tag === 'ar-SA' || tag === 'de-DE') await axe(el, `${tag} bags`)
    })
  }
})

// Flight dates and times as the ticket shows them: at the airport's own clock. The API answers every
// segment time in its airport's UTC offset (`2027-08-07T23:30:00-07:00` for a PDX departure that is
// `2027-08-08T06:30:00Z`), and the widgets' formatter (components/i18n/index.ts `date`, `time`) reads the
// wall clock written in that text, never the instant, so a traveller in any time zone, and the widget's
// UTC-based Intl formats, agree with the boarding pass.
//
// The widget therefore RELIES on the server's offset form: given `…Z` it shows the UTC clock, which is the
// airport's only at an airport on UTC. The last test pins that, so a change in either place is seen.
//
// Where a widget shows a flight's date: the journey titles of the bag and option views, the seat map's
// flight tabs. No widget shows a time of day yet; the Locale's `time` is checked directly.
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
