// `npm run build:manifest` (cem analyze) → custom-elements.json at the repo root, from the JSDoc headers
// of the Lit elements (@event, @csspart, @cssproperty, @slot). packagejson: false keeps the analyzer from
// rewriting package.json on every build.
export default {
  globs: ['components/**/*.ts'],
  exclude: ['components/**/*.test.ts', 'components/**/*.stories.ts'],
  litelement: true,
  packagejson: false,
}
