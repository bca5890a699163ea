// `npm run build:manifest` (cem analyze) → custom-elements.json at the repo root, from the JSDoc headers
// of the Lit elements (@tagname, @event, @csspart, @cssproperty, @slot). Storybook's controls and docs
// read it. packagejson: false keeps the analyzer from rewriting package.json on every build.
export default {
  globs: ['components/**/*.ts'],
  exclude: ['components/**/*.test.ts'],
  litelement: true,
  packagejson: false,
  plugins: [{
    // The analyzer reads `new CustomEvent(name, …)` in SvcElement.emit as an event called "name" on every
    // element; the real events are the `svc-*` ones each element declares with @event.
    name: 'svc-declared-events-only',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        for (const d of mod.declarations ?? []) {
          if (d.events) d.events = d.events.filter((e) => e.name?.startsWith('svc-'))
        }
      }
    },
  }],
}
