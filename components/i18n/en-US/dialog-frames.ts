/**
 * The English texts of the card and modal displays (../../dialog-frames/dialog-frames.ts: the card, the
 * dialog, `<svc-upsell>`'s dialog, and the bag view's card), which register them (`addEnglish`) as they
 * load: svc.min.js fetches them the first time a widget shows a card or a dialog, and their texts with
 * them. Part of the reference table, ../en-US.ts.
 */
export const dialogFramesTexts = {
  done: 'Done',
  bags_open: 'Add bags',
  bags_edit: 'Change bags',
  extras_title: 'Extras for your trip',
  bags_none_selected: 'No extra bags selected yet.',
}
