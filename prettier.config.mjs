// `npm run format` writes, `npm run format:check` (part of `npm test`) checks: one formatter for the code of
// the whole tree (TypeScript and JavaScript; docs/development.md "Style"). The options keep the style the
// code was written in (no semicolons, single quotes, trailing commas) at a width a side-by-side diff fits.
// Template literals are left as written: a Lit template's whitespace is the widget's output, and a
// formatter must not change what a traveller sees.
export default {
  printWidth: 120,
  semi: false,
  singleQuote: true,
  trailingComma: 'all',
  embeddedLanguageFormatting: 'off',
}
