/**
 * Arabic (Egypt): the ar-SA table. Egyptian airline and travel sites write Modern Standard Arabic in their
 * interfaces (the Egyptian colloquial is spoken, not written in a checkout), so the words are the same;
 * numbers, prices and dates come from the ar-EG tag itself (Arabic-Indic digits, Egyptian pound formats).
 */
import type { Strings } from '../en-US.ts'
import arSA from './ar-SA.ts'

export default { ...arSA } satisfies Strings
