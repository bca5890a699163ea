/**
 * The translations (components/i18n/locales): every table has exactly the keys of en-US, the same
 * `{placeholders}`, the plural forms its language uses, nothing empty and nothing left in English; and the
 * Locale's plural choice, number formatting and table fallback. (The built JSON is checked against the
 * modules after the build: test/e2e/built-locales.test.ts.)
 */
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { enUS, type Plural, type Strings } from '../../../components/i18n/en-US.ts'
import {
  addEnglish,
  addLocale,
  bestTag,
  hasLocale,
  LOCALES,
  localeFor,
  setStrings,
} from '../../../components/i18n/index.ts'
import { seatMapTexts } from '../../../components/i18n/en-US/seat-map.ts'

const root = join(import.meta.dirname, '..', '..', '..')
const dir = join(root, 'components', 'i18n', 'locales')
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort()
const tables = new Map<string, Strings>()
for (const f of files) tables.set(f.slice(0, -3), ((await import(join(dir, f))) as { default: Strings }).default)

type Key = keyof Strings
const KEYS = Object.keys(enUS) as Key[]
const isPlural = (v: string | Plural): v is Plural => typeof v !== 'string'
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort()
const forms = (v: string | Plural): string[] => (isPlural(v) ? Object.values(v) : [v])
const placeholdersOf = (v: string | Plural) => [...new Set(forms(v).flatMap(placeholders))].sort()
const lang = (tag: string) => tag.split('-')[0]!

/** Texts that are notation, not words (arrows, ×, ·, a flight number): the same in most languages. */
const NOTATION = new Set<Key>([
  'seat_route',
  'seat_flight_number',
  'route',
  'journey_title',
  'times',
  'bag_label',
  'bag_pieces',
  'bag_dimensions',
  'included_line',
])
/** Words that are the same as in English in that language (each must still be identical, or it is stale). */
const SAME_WORD: Record<string, Key[]> = {
  'de-DE': ['deck', 'seat_decks'], // "Deck 2", "Decks": the German aviation words
  'fr-FR': ['total'], // "Total"
  'es-ES': ['total'],
  'pt-PT': ['total'],
  'nb-NO': ['option_for'], // "{product} for {passenger}, {route}": Norwegian "for"
}

/**
 * Integers (0–1000) and halves that a plural category of `tag` covers. A form may leave out `{count}`
 * only when its category means one number, as Arabic's "zero", "one" and "two" do ("حقيبتين", two bags).
 */
function numbersOf(tag: string, category: string): number[] {
  const rules = new Intl.PluralRules(tag)
  const candidates = [...Array(1001).keys(), 0.5, 1.5, 2.5, 1_000_000]
  return candidates.filter((n) => rules.select(n) === category)
}

/** The product's locales (issue "Thirty locales"): what LOCALES must list, no more, no less. */
const PRODUCT_LOCALES = [
  'ar-EG',
  'ar-SA',
  'da-DK',
  'de-DE',
  'el-GR',
  'en-AU',
  'en-CA',
  'en-GB',
  'en-US',
  'es-ES',
  'et-EE',
  'fi-FI',
  'fr-FR',
  'id-ID',
  'it-IT',
  'ja-JP',
  'ko-KR',
  'lt-LT',
  'lv-LV',
  'nl-NL',
  'nb-NO',
  'pl-PL',
  'pt-PT',
  'ro-RO',
  'sv-SE',
  'th-TH',
  'tr-TR',
  'vi-VN',
  'zh-CN',
  'zh-HK',
]

describe('the locale tables', () => {
  test("LOCALES is the product's thirty, each once, en-US first", () => {
    assert.deepEqual([...LOCALES].sort(), [...PRODUCT_LOCALES].sort())
    assert.equal(new Set(LOCALES).size, 30)
  })

  test('one module per shipped locale, and every shipped locale but en-US has a module', () => {
    assert.deepEqual([...tables.keys()].sort(), LOCALES.filter((t) => t !== 'en-US').sort())
    assert.equal(LOCALES[0], 'en-US')
    for (const tag of LOCALES) assert.equal(Intl.getCanonicalLocales(tag)[0], tag, `${tag} is canonical`)
  })

  for (const [tag, t] of tables) {
    describe(tag, () => {
      test('exactly the en-US keys, each a text where en-US has a text and plural forms where it has them', () => {
        assert.deepEqual(Object.keys(t).sort(), [...KEYS].sort())
        for (const k of KEYS) assert.equal(isPlural(t[k]), isPlural(enUS[k]), k)
      })

      test('the same {placeholders} as en-US in every text', () => {
        for (const k of KEYS) {
          const v = t[k]
          if (!isPlural(v)) {
            assert.deepEqual(placeholders(v), placeholders(enUS[k] as string), `${tag} ${k}: ${v}`)
            continue
          }
          // Every form has the non-count placeholders; {count} may be spelt out only where a category is one number.
          const all = placeholdersOf(enUS[k])
          for (const [category, text] of Object.entries(v) as Array<[string, string]>) {
            const has = placeholders(text)
            assert.ok(
              has.every((p) => all.includes(p)),
              `${tag} ${k}.${category} has an unknown placeholder: ${text}`,
            )
            const needed = numbersOf(tag, category).length === 1 ? all.filter((p) => p !== 'count') : all
            assert.ok(
              needed.every((p) => has.includes(p)),
              `${tag} ${k}.${category} lacks ${needed.filter((p) => !has.includes(p)).join(', ')}: ${text}`,
            )
          }
        }
      })

      test('plural texts have exactly the categories Intl.PluralRules lists for the language', () => {
        const categories = [...new Intl.PluralRules(tag).resolvedOptions().pluralCategories].sort()
        for (const k of KEYS) {
          const v = t[k]
          if (isPlural(v)) assert.deepEqual(Object.keys(v).sort(), categories, `${tag} ${k}`)
        }
      })

      test('no text is empty, padded or left with a stray brace', () => {
        for (const k of KEYS) {
          for (const s of forms(t[k])) {
            assert.ok(s.trim() !== '', `${tag} ${k} is empty`)
            assert.equal(s, s.trim(), `${tag} ${k} has leading or trailing space`)
            assert.equal(
              s.replace(/\{\w+\}/g, '').match(/[{}]/),
              null,
              `${tag} ${k} has a brace that is no placeholder: ${s}`,
            )
          }
        }
      })

      if (lang(tag) !== 'en') {
        test('nothing is left in English, but notation and the words listed as the same', () => {
          const same = KEYS.filter((k) => !NOTATION.has(k) && JSON.stringify(t[k]) === JSON.stringify(enUS[k]))
          assert.deepEqual(same, SAME_WORD[tag] ?? [], `${tag}: the same as en-US`)
        })
      }
    })
  }

  test('en-AU and en-CA: whole tables, British or Canadian spelling where en-US differs', () => {
    const au = tables.get('en-AU')!
    const ca = tables.get('en-CA')!
    assert.equal(au.bags_title, 'Baggage')
    assert.equal(au.bag_cabin, 'Carry-on bag')
    for (const t of [au, ca]) {
      assert.equal(t.fare_family_per_traveller, '{price} per traveller')
      for (const k of KEYS) for (const s of forms(t[k])) assert.doesNotMatch(s, /\b(traveler|canceled)\b/i, k)
    }
  })

  test('ar-EG, like ar-SA, is right to left', () => {
    assert.equal(localeFor('ar-EG').dir, 'rtl')
    assert.match(tables.get('ar-EG')!.route, /\u200F←\u200F/)
  })

  test('en-GB says it the British way where that differs', () => {
    const gb = tables.get('en-GB')!
    assert.equal(gb.bags_title, 'Luggage')
    assert.equal(gb.bag_checked, 'Hold bag')
    assert.equal(gb.fare_family_per_traveller, '{price} per traveller')
    assert.equal(enUS.fare_family_per_traveller, '{price} per traveler')
    for (const k of KEYS)
      for (const s of forms(gb[k])) assert.doesNotMatch(s, /\b(traveler|color|canceled|center)\b/i, k)
  })
})

describe('Locale.format and the tables', () => {
  for (const [tag, t] of tables) addLocale(tag, t)

  test('the plural form comes from the count, in the table language', () => {
    const en = localeFor('en-US')
    assert.equal(en.format('bags_selected', { count: 1 }), '1 bag selected')
    assert.equal(en.format('bags_selected', { count: 2 }), '2 bags selected')
    assert.equal(en.format('bags_selected', { count: 0 }), '0 bags selected')
    const pl = localeFor('pl-PL')
    assert.deepEqual(
      [1, 2, 4, 5, 12, 22, 25, 1.5].map((count) => pl.format('bags_selected', { count })),
      [
        'Wybrano 1 sztukę bagażu',
        'Wybrano 2 sztuki bagażu',
        'Wybrano 4 sztuki bagażu',
        'Wybrano 5 sztuk bagażu',
        'Wybrano 12 sztuk bagażu',
        'Wybrano 22 sztuki bagażu',
        'Wybrano 25 sztuk bagażu',
        'Wybrano 1,5 sztuki bagażu',
      ],
    )
    const fr = localeFor('fr-FR')
    assert.equal(fr.format('bags_selected', { count: 0 }), '0 bagage sélectionné')
    assert.equal(fr.format('bags_selected', { count: 3 }), '3 bagages sélectionnés')
    assert.equal(
      fr.format('bags_selected', { count: 1_000_000 }),
      `1${'\u202f'}000${'\u202f'}000 de bagages sélectionnés`,
    )
    assert.equal(localeFor('ja-JP').format('bags_selected', { count: 1 }), '手荷物1個を選択済みです')
    assert.equal(localeFor('de-DE').format('bags_selected', { count: 1 }), '1 Gepäckstück ausgewählt')
  })

  test('Arabic: six forms, the count in Arabic-Indic digits', () => {
    const ar = localeFor('ar-SA')
    assert.deepEqual(
      [0, 1, 2, 3, 11, 100].map((count) => ar.format('bags_selected', { count })),
      [
        'لم يتم اختيار أي حقيبة',
        'تم اختيار حقيبة واحدة',
        'تم اختيار حقيبتين',
        'تم اختيار ٣ حقائب',
        'تم اختيار ١١ حقيبة',
        'تم اختيار ١٠٠ حقيبة',
      ],
    )
    assert.equal(ar.dir, 'rtl')
    assert.equal(localeFor('de-DE').dir, 'ltr')
  })

  test('a plural text read without a count, or through t, is its "other" form; t never holds an object', () => {
    const de = localeFor('de-DE')
    assert.equal(de.format('bags_selected'), '{count} Gepäckstücke ausgewählt')
    assert.equal(de.t.bags_selected, '{count} Gepäckstücke ausgewählt')
    for (const tag of LOCALES) for (const v of Object.values(localeFor(tag).t)) assert.equal(typeof v, 'string', tag)
  })

  test('placeholders fill; unknown ones stay; strings are used as given', () => {
    const de = localeFor('de-DE')
    assert.equal(de.format('seat_chosen', { seat: '12A', passenger: 'Anna' }), 'Sitzplatz 12A für Anna ausgewählt.')
    assert.equal(de.format('bag_limit_reached', { count: '3' }), 'Höchstens 3')
    assert.equal(de.format('bag_up_to', { weight: '23 kg' }), 'Bis 23 kg, {size}')
  })

  test('right to left: names, codes and flight numbers put in are isolated (U+2068 FSI … U+2069 PDI)', () => {
    const [fsi, pdi] = ['\u2068', '\u2069']
    const ar = localeFor('ar-SA')
    // Today's seat-map heading read "JFK ← Amelia Clarke، LHR": the Latin run swallowed the comma and the route.
    const route = ar.format('seat_route', { from: 'JFK', to: 'LHR' })
    assert.equal(route, `${fsi}JFK${pdi} \u200F←\u200F ${fsi}LHR${pdi}`)
    assert.equal(
      ar.format('seat_item', { seat: '12A', passenger: 'Amelia Clarke', route }),
      `المقعد ${fsi}12A${pdi} لـ ${fsi}Amelia Clarke${pdi}، ${fsi}${route}${pdi}`,
    )
    assert.equal(ar.format('seat_flight_number', { airline: 'BA', number: '117' }), `${fsi}BA${pdi} ${fsi}117${pdi}`)
    assert.equal(
      localeFor('ar-EG').format('seat_for', { passenger: 'Amelia Clarke' }),
      `مقعد ${fsi}Amelia Clarke${pdi}`,
    )
    // Every isolate is closed, and numbers (in the locale's digits) need none.
    assert.equal(ar.format('bag_limit_reached', { count: 3 }), 'الحد الأقصى ٣')
    // Left-to-right locales are unchanged. (en-US's seat-map texts arrive with the seat map's chunk, as here.)
    addEnglish(seatMapTexts)
    assert.equal(localeFor('de-DE').format('seat_route', { from: 'JFK', to: 'LHR' }), 'JFK → LHR')
    assert.equal(localeFor('en-US').format('seat_for', { passenger: 'Amelia Clarke' }), 'Seat for Amelia Clarke')
  })

  test("setStrings: the seller's texts over every locale, plural forms or one string, replaced by the next call", () => {
    try {
      setStrings({ bags_title: 'Luggage & more', bags_selected: '{count} × bag', seat_for: 'Pick a seat, {passenger}' })
      assert.equal(localeFor('en-US').t.bags_title, 'Luggage & more')
      assert.equal(localeFor('de-DE').t.bags_title, 'Luggage & more')
      assert.equal(localeFor('de-DE').t.seats_title, 'Sitzplätze')
      assert.equal(localeFor('en-US').format('bags_selected', { count: 1 }), '1 × bag')
      assert.equal(localeFor('en-US').format('seat_for', { passenger: 'Ann' }), 'Pick a seat, Ann')
      setStrings({ bags_selected: { one: 'One case', other: '{count} cases' } })
      assert.equal(localeFor('en-GB').t.bags_title, 'Luggage')
      assert.equal(localeFor('en-GB').format('bags_selected', { count: 1 }), 'One case')
      assert.equal(localeFor('en-GB').format('bags_selected', { count: 4 }), '4 cases')
    } finally {
      setStrings()
    }
    assert.equal(localeFor('en-US').t.bags_title, 'Bags')
  })

  test('a locale without a table of its own: the same language and script, else en-US; numbers stay its own', () => {
    assert.equal(localeFor('de-AT').t.bags_title, 'Gepäck')
    assert.equal(localeFor('de-AT').tag, 'de-AT')
    assert.equal(localeFor('pt-BR').t.bags_title, 'Bagagem')
    assert.equal(localeFor('zh-TW').t.bags_open, '加購行李') // Traditional characters: zh-HK
    assert.equal(localeFor('zh-SG').t.bags_open, '添加行李') // Simplified: zh-CN
    assert.equal(localeFor('en-GB').t.bags_title, 'Luggage')
    assert.equal(localeFor('en-NZ').t.bags_title, 'Bags')
    assert.equal(localeFor('ar-AE').tag, 'ar-AE')
    const uk = localeFor('uk-UA')
    assert.equal(uk.t.bags_title, 'Bags')
    assert.equal(
      uk.price(7598, 2, 'EUR'),
      new Intl.NumberFormat('uk-UA', { style: 'currency', currency: 'EUR' }).format(75.98),
    )
  })

  test('bestTag: the exact tag, else the first of the same language and script', () => {
    assert.equal(bestTag('de-DE', LOCALES), 'de-DE')
    assert.equal(bestTag('de-AT', LOCALES), 'de-DE')
    assert.equal(bestTag('de-CH', LOCALES), 'de-DE')
    assert.equal(bestTag('en-GB', LOCALES), 'en-GB')
    assert.equal(bestTag('en-AU', LOCALES), 'en-AU')
    assert.equal(bestTag('en-NZ', LOCALES), 'en-US')
    assert.equal(bestTag('pt-BR', LOCALES), 'pt-PT')
    assert.equal(bestTag('ar-EG', LOCALES), 'ar-EG')
    assert.equal(bestTag('ar-AE', LOCALES), 'ar-SA')
    assert.equal(bestTag('zh-SG', LOCALES), 'zh-CN')
    assert.equal(bestTag('zh-Hans-HK', LOCALES), 'zh-CN')
    assert.equal(bestTag('zh-HK', LOCALES), 'zh-HK')
    assert.equal(bestTag('zh-TW', LOCALES), 'zh-HK')
    assert.equal(bestTag('zh-Hant', LOCALES), 'zh-HK')
    assert.equal(bestTag('sv-SE', LOCALES), 'sv-SE')
    assert.equal(bestTag('sv-FI', LOCALES), 'sv-SE')
    assert.equal(bestTag('nb-NO', LOCALES), 'nb-NO')
    assert.equal(bestTag('uk-UA', LOCALES), undefined)
    assert.equal(bestTag('he-IL', LOCALES), undefined)
  })

  test('addLocale: canonical tags, English for keys a table lacks, and Locales made before it see the table', () => {
    assert.equal(hasLocale('uk-UA'), false)
    assert.equal(localeFor('uk-UA').t.bags_title, 'Bags')
    addLocale('uk-ua', { bags_title: 'Багаж' } as unknown as Strings)
    assert.equal(hasLocale('uk-UA'), true)
    assert.equal(localeFor('uk-UA').t.bags_title, 'Багаж')
    assert.equal(localeFor('uk-UA').t.seats_title, 'Seats')
    assert.equal(localeFor('uk-UA').format('bags_selected', { count: 1 }), '1 bag selected')
    assert.throws(() => addLocale('not a tag', enUS), RangeError)
  })
})
