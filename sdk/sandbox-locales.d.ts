/**
 * Every locale table (components/i18n/locales/*.ts) keyed by tag, for svc-sandbox.min.js: the module is
 * made at build time by the `svc-sandbox-locales` plugin in rollup.config.mjs, so a new table is in the
 * sandbox without touching this list.
 */
declare module 'virtual:svc-locales' {
  const tables: Record<string, Record<string, unknown>>
  export default tables
}
