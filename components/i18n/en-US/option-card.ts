/**
 * The English texts of the option cards (`<svc-option-card>`: priority boarding, automatic check-in, fare
 * upgrades), which register them (`addEnglish`) as they load: svc.min.js fetches the cards the first time
 * a widget shows one, and their texts with them. Part of the reference table, ../en-US.ts.
 */
export const optionCardTexts = {
  priority_boarding_open: 'Add priority boarding',
  priority_boarding_edit: 'Change priority boarding',
  automatic_check_in_open: 'Add automatic check-in',
  automatic_check_in_edit: 'Change automatic check-in',
  fare_family_open: 'See fare upgrades',
  fare_family_edit: 'Change fare upgrade',
  fare_family_current: 'Your fare: {name}',
  fare_family_choose: 'Choose {name}',
  fare_family_keep: 'Keep my current fare',
  fare_family_selected: 'Selected',
  fare_family_per_traveller: '{price} per traveler',
  option_for: '{product} for {passenger}, {route}',
  add: 'Add',
  option_added: 'Added',
  option_none_offered: 'Not available on this flight.',
  options_none_selected: 'Nothing selected yet.',
}
