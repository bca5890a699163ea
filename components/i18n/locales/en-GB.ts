/**
 * English (UK): en-US where British usage agrees, British where it differs: "luggage" for the bags
 * section (a count still says "bags"), "hold bag" for a checked bag, "traveller".
 */
import { enUS, type Strings } from '../en-US.ts'

export default {
  ...enUS,
  bags_title: 'Luggage',
  bags_open: 'Add luggage',
  bags_edit: 'Change luggage',
  bags_none_offered: 'No extra luggage can be added on this flight.',
  bag_checked: 'Hold bag',
  bags_none_selected: 'No extra luggage selected yet.',
  fare_family_per_traveller: '{price} per traveller',
} satisfies Strings
