// `npm run build:manifest` (cem analyze) → custom-elements.json at the repo root, from the JSDoc headers
// of the Lit elements (@tagname, @event, @csspart, @cssproperty, @slot). Storybook's controls and docs
// read it. packagejson: false keeps the analyzer from rewriting package.json on every build.
export default {
  globs: ['components/**/*.ts'],
  exclude: ['components/**/*.test.ts'],
  litelement: true,
  packagejson: false,
  plugins: [
    {
      // The manifest is the elements' public API (what Storybook's controls and docs, and editors, show):
      // - the analyzer may read a generic `new CustomEvent(name, …)` (as in an emit helper) as an event called "name" on
      //   every element; the real events are the `svc-*` ones each element declares with @event;
      // - protected and private members (and the static `define`) are how the elements are built, not
      //   what a page may use.
      name: 'svc-public-api-only',
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const d of mod.declarations ?? []) {
            if (d.events) d.events = d.events.filter((e) => e.name?.startsWith('svc-'))
            if (d.members) d.members = d.members.filter((m) => !m.privacy && !m.static && !m.name.startsWith('#'))
          }
        }
      },
    },
  ],
}
