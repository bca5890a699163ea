/**
 * English (US) texts: the reference table, and the only one in svc.min.js (the others are in locales/,
 * built to JSON the SDK fetches). Every other locale `satisfies Strings`, so a key missing in a
 * translation, or one too many, fails the typecheck. `{name}` placeholders are filled by `format()`.
 *
 * It comes in parts (./en-US/), so that svc.min.js carries only the texts of the views in it
 * (./en-US/core.ts): the card and modal displays, the seat map, the option cards and the basket view bring
 * theirs, which they register with `addEnglish` as they load. i18n/index.ts reads the parts, never this
 * whole table.
 *
 * A text that counts something is a `Plural`: one form per plural category of the language, chosen by
 * `format()` from `values.count` with `Intl.PluralRules` (English one/other, Polish one/few/many/other,
 * Arabic zero/one/two/few/many/other, Japanese and Chinese other only). The type asks only for `other`;
 * test/components/i18n/index.test.ts checks that each locale has exactly the categories its language uses.
 */
import { coreTexts } from './en-US/core.ts'
import { seatMapTexts } from './en-US/seat-map.ts'
import { optionCardTexts } from './en-US/option-card.ts'
import { basketTexts } from './en-US/basket.ts'
import { dialogFramesTexts } from './en-US/dialog-frames.ts'

/** The forms of a counted text, by `Intl.PluralRules` category; `other` is always there. */
export type Plural = { [C in Intl.LDMLPluralRule]?: string } & { other: string }

const table = { ...coreTexts, ...dialogFramesTexts, ...seatMapTexts, ...optionCardTexts, ...basketTexts }

/** Every key of the reference table: a plain text, or a `Plural` where en-US has one. */
export type Strings = { [K in keyof typeof table]: (typeof table)[K] extends string ? string : Plural }

export const enUS: Strings = table
