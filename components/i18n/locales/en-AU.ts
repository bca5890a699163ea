/**
 * English (Australia): en-US where Australian usage agrees, and the words Australian airlines use where it
 * differs: "baggage" for the bags section (a count still says "bags"), "carry-on bag" for a cabin bag, and
 * British spelling ("traveller"). The built JSON is the whole table all the same (the build evaluates it).
 */
import { enUS, type Strings } from '../en-US.ts'

export default {
  ...enUS,
  bags_title: 'Baggage',
  bags_open: 'Add baggage',
  bags_edit: 'Change baggage',
  bags_none_offered: 'No extra baggage can be added on this flight.',
  bags_none_selected: 'No extra baggage selected yet.',
  bag_cabin: 'Carry-on bag',
  fare_family_per_traveller: '{price} per traveller',
} satisfies Strings
