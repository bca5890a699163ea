/**
 * English (Canada): en-US wording with Canadian spelling ("traveller") and "carry-on bag" for a cabin bag,
 * as Canadian airlines say. The built JSON is the whole table all the same (the build evaluates it).
 */
import { enUS, type Strings } from '../en-US.ts'

export default {
  ...enUS,
  bag_cabin: 'Carry-on bag',
  fare_family_per_traveller: '{price} per traveller',
} satisfies Strings
