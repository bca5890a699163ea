/**
 * Every shipped locale in the embedded bag view, with tables registered the way a bundler user does
 * (`import de from …/locales/de-DE.js; addLocale('de-DE', de)`): the texts are the locale's, no
 * `{placeholder}` is left in the page or in an accessible name, and the long German, French and Arabic
 * texts fit 320 px without horizontal scrolling, with a bag chosen (stepper, "Maximum", badges) and without.
 */
import { expect } from '@esm-bundle/chai'
import { html } from 'lit'
import '../../../components/index.ts'
import { addLocale, LOCALES, type Strings } from '../../../components/i18n/index.ts'
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
import { addBag, axe, cleanup, deep, deepAll, expectNoOverflow, mount, session, textOf, until } from '../helpers.ts'

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
