/**
 * English (US) texts: the reference table. Every other locale is typed `Strings`, so a key missing in a
 * translation fails the typecheck. `{name}` placeholders are filled by `format()`.
 */
export const enUS = {
  loading: 'Loading options…',
  retry: 'Try again',
  close: 'Close',
  done: 'Done',
  error_load: 'Extras could not be loaded.',
  error_change: 'Your selection could not be saved. Please try again.',
  // bags
  bags_title: 'Bags',
  bags_open: 'Add bags',
  bags_edit: 'Change bags',
  bags_none_offered: 'No extra bags can be added on this flight.',
  bags_selected: '{count} bags selected',
  bag_cabin: 'Cabin bag',
  bag_checked: 'Checked bag',
  bag_included: 'Included',
  bag_up_to: 'Up to {weight}, {size}',
  journey_to: 'To {city}',
  passenger_n: 'Passenger {n}',
  infant_on_lap: 'Infant on lap',
  add: 'Add',
  remove: 'Remove',
  increase: 'Add one {item} for {passenger}',
  decrease: 'Remove one {item} for {passenger}',
  quantity: 'Quantity',
  not_available: 'Not available',
  // seats
  seats_title: 'Seats',
  seats_open: 'Choose seats',
  seat_n: 'Seat {seat}',
  seat_taken: 'Taken',
  seat_restricted: 'Not available for this passenger',
  seat_exit: 'Exit row',
  seat_extra_legroom: 'Extra legroom',
  seat_window: 'Window',
  seat_aisle: 'Aisle',
  seat_legend: 'Legend',
  seat_for: 'Seat for {passenger}',
  deck: 'Deck {n}',
  // other products
  priority_boarding_title: 'Priority boarding',
  automatic_check_in_title: 'Automatic check-in',
  fare_family_title: 'Upgrade your fare',
  // basket and validity
  basket_title: 'Your extras',
  basket_empty: 'No extras selected yet.',
  total: 'Total',
  state_checking: 'Checking availability…',
  state_price_changed: 'The price changed from {old} to {new}.',
  state_unavailable: 'This extra is no longer available.',
  state_invalid: 'This price has expired and must be checked again.',
  accept_price: 'Accept new price',
  choose_again: 'Choose another',
  announce_added: '{item} added. Basket total {total}.',
  announce_removed: '{item} removed. Basket total {total}.',
}

export type Strings = typeof enUS
