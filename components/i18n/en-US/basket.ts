/**
 * The English texts of the basket view (`<svc-basket>`), which registers them (`addEnglish`) as it loads
 * (svc.min.js shows no basket view, so it carries neither). Part of the reference table, ../en-US.ts.
 */
export const basketTexts = {
  basket_title: 'Your extras',
  basket_empty: 'No extras selected yet.',
}
