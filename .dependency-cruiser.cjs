// Layers that only point down (`npm run lint:deps`, part of `npm test`):
//
//   examples, test, bench, scripts, stories   may import anything, but the demo checkout's page
//                 (examples/seller-checkout/app, browser code) only itself and the SDK's types
//   sdk         → components, client, core (types only); mock-server's types, and mock-server itself
//                 only from sdk/sandbox-bundle.ts (the entry of svc-sandbox.min.js, which svc.min.js
//                 loads with a <script> tag in sandbox mode; it never imports it)
//   components  → client, core (types only, but the product-type registry: core/schemas/product-types.ts)
//   client      → core (types only, but the product-type registry)
//   console     → components/theme.ts (its tokens), core (types only): the operator console's page
//   server      → core
//   mock-server → core
//   core        → nothing of ours outside core, and no metrics library (prom-client is the server's)
//
// and inside core/, its layers (docs/architecture.md), each only down:
//   core.ts      the composition root: createCore wires adapters into the application; hosts hold it
//   api/         the operation table and the request pipeline → application, domain, ports, schemas, shared
//   application/ the services over the ports, and the jobs    → domain, ports, schemas, shared
//   adapters/    memory store, sandbox airline, fetch sender   → domain, ports, schemas, shared
//   domain/      the rules, pure functions of records          → ports (records' types), schemas, shared
//   ports/       what the core needs from outside              → schemas, shared
//   shared/      helpers: errors, validation, hashing, sealing → schemas (the wording of a refused field)
//   schemas/     the contract's shapes (TypeBox)               → nothing of core's
//
// and no import cycle anywhere. Type-only imports count: a layer's types are part of what it depends on.
const OURS = [
  'core',
  'server',
  'console',
  'mock-server',
  'client',
  'sdk',
  'components',
  'examples',
  'test',
  'bench',
  'scripts',
  'stories',
  '\\.storybook',
]
const under = (...dirs) => `^(${dirs.join('|')})/`
const CORE_LAYERS = ['api', 'application', 'adapters', 'domain', 'ports', 'schemas', 'shared']
/** A rule that `core/<layer>/` imports no core layer but `allowed` (and itself), nor the composition root. */
const coreLayer = (layer, allowed, comment) => ({
  name: `core-${layer}-points-down`,
  severity: 'error',
  comment,
  from: { path: `^core/${layer}/` },
  to: {
    path: [`^core/(${CORE_LAYERS.filter((l) => l !== layer && !allowed.includes(l)).join('|')})/`, '^core/[^/]+\\.ts$'],
  },
})
const except = (...allowed) => under(...OURS.filter((d) => !allowed.includes(d)))

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: the modules in it cannot be understood, tested or loaded one without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment: 'core/ is the pure rules: it knows no host (server, mock-server), no browser layer and no demo.',
      from: { path: under('core') },
      to: { path: except('core') },
    },
    coreLayer(
      'api',
      ['application', 'domain', 'ports', 'schemas', 'shared'],
      'The operation table and pipeline call the application; nothing below knows HTTP operations exist.',
    ),
    coreLayer(
      'application',
      ['domain', 'ports', 'schemas', 'shared'],
      "The services work over the ports; which adapter fills a port is the composition root's choice (core.ts), never theirs.",
    ),
    coreLayer(
      'adapters',
      ['domain', 'ports', 'schemas', 'shared'],
      'An adapter implements a port: it may use the rules and helpers, never a service or the API.',
    ),
    coreLayer(
      'domain',
      ['ports', 'schemas', 'shared'],
      'The rules are pure functions of records (ports/records.ts): no service, no adapter, no store.',
    ),
    coreLayer('ports', ['schemas', 'shared'], 'The ports name what the core needs; they implement nothing.'),
    coreLayer(
      'shared',
      ['schemas'],
      'Shared helpers know nothing of the service (validation reads only how the schemas word a refusal).',
    ),
    coreLayer('schemas', [], "The contract's shapes depend on nothing: every layer reads them."),
    {
      name: 'domain-takes-only-types-from-ports',
      severity: 'error',
      comment: 'The rules read records; they never call a port (a store or a supplier call belongs to application/).',
      from: { path: '^core/domain/' },
      to: { path: '^core/ports/', pathNot: '^core/ports/supplier-errors\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'core-knows-no-metrics-library',
      severity: 'error',
      comment:
        'core/ also runs in the offline sandbox: the server counts what the core reports through Core.observe (server/metrics.ts), the core never imports prom-client.',
      from: { path: under('core') },
      to: { path: '(^|/)node_modules/prom-client/' },
    },
    {
      name: 'server-imports-only-core',
      severity: 'error',
      comment:
        'server/ is one host of core/: no demo (examples take hooks from serve.ts), no sandbox, no browser code.',
      from: { path: under('server') },
      to: { path: except('server', 'core') },
    },
    {
      name: 'mock-server-imports-only-core',
      severity: 'error',
      comment:
        'mock-server/ is the other host of core/ (the offline sandbox): it knows nothing of the server or the browser layers.',
      from: { path: under('mock-server') },
      to: { path: except('mock-server', 'core') },
    },
    {
      name: 'client-imports-only-core',
      severity: 'error',
      comment:
        'client/ (API client, session, errors, offers) is what the widgets and the SDK share: it imports neither.',
      from: { path: under('client') },
      to: { path: except('client', 'core') },
    },
    {
      name: 'components-import-only-client-and-core',
      severity: 'error',
      comment: 'The widgets build on client/; the SDK builds on them, never the other way round.',
      from: { path: under('components') },
      to: { path: except('components', 'client', 'core') },
    },
    {
      name: 'sdk-imports-no-host-or-demo',
      severity: 'error',
      comment: "The SDK runs in the seller's page: no server, no demo, no test or story code.",
      from: { path: under('sdk') },
      to: { path: except('sdk', 'components', 'client', 'core', 'mock-server') },
    },
    {
      name: 'sdk-loads-the-sandbox-only-from-its-bundle',
      severity: 'error',
      comment:
        'svc.min.js must not carry the sandbox: only sdk/sandbox-bundle.ts (svc-sandbox.min.js) imports mock-server; the rest of sdk/ only its types.',
      from: { path: under('sdk'), pathNot: '^sdk/sandbox-bundle\\.ts$' },
      to: { path: under('mock-server'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'browser-layers-take-only-types-from-core',
      severity: 'error',
      comment:
        'core/ is server code (schemas, rules, stores): the browser layers read its types, and its code reaches a page only in the sandbox bundle (through mock-server).',
      from: { path: under('client', 'components', 'sdk') },
      // Except the product-type registry: the browser needs its values (the product names, each one's view and
      // title) and it is data importing nothing, so it adds only itself to svc.min.js (core/schemas/product-types.ts).
      to: { path: under('core'), pathNot: '^core/schemas/product-types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'product-type-registry-imports-nothing',
      severity: 'error',
      comment:
        'core/schemas/product-types.ts is the one module of core/ the browser layers take values from: anything it imported would be bundled into svc.min.js with it.',
      from: { path: '^core/schemas/product-types\\.ts$' },
      to: { pathNot: '^core/schemas/product-types\\.ts$' },
    },
    {
      name: 'demo-page-is-browser-code',
      severity: 'error',
      comment:
        "The demo checkout's page (examples/seller-checkout/app, bundled into /demo/app.js) runs in the browser: it imports its own modules and the SDK's types, nothing server-side (its backend, the service, Node). A package it imported would not be bundled: the build fails on it (rollup.config.mjs).",
      from: { path: '^examples/seller-checkout/app/' },
      to: { pathNot: ['^examples/seller-checkout/app/', '^sdk/'] },
    },
    {
      name: 'demo-page-takes-only-types-from-the-sdk',
      severity: 'error',
      comment:
        'The page has the SDK from its own <script> tag (window.Svc): a value import would bundle a second SDK, with its own elements and Svc, into the page.',
      from: { path: '^examples/seller-checkout/app/' },
      to: { path: '^sdk/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'console-is-browser-code',
      severity: 'error',
      comment:
        "The operator console (console/, bundled into /console/assets/console.js) runs in the browser: it imports itself, the widgets' theme tokens and core's types, nothing server-side. It talks to the server over HTTP only.",
      from: { path: under('console') },
      to: { path: except('console', 'core'), pathNot: '^components/theme(-props)?\\.ts$' },
    },
    {
      name: 'console-takes-only-types-from-core',
      severity: 'error',
      comment:
        "core/ is server code: the console reads the admin API's shapes from it (admin.ts, records.ts), never its code, which would bundle the service into the page.",
      from: { path: under('console') },
      to: { path: under('core'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing (a moved or misspelt file).',
      from: { path: under(...OURS) },
      // virtual:svc-locales is made by rollup (rollup.config.mjs sandboxLocales); custom-elements.json by
      // `npm run build:manifest` (which `npm run typecheck` runs first); the package and its exports
      // (`svc-ancillaries`, `svc-ancillaries/…`, as the examples import them) by `npm run build`, which runs later.
      to: { couldNotResolve: true, pathNot: ['^virtual:', '(^|/)custom-elements\\.json$', '^svc-ancillaries(/|$)'] },
    },
  ],
  options: {
    // Only our sources: a package's insides are not ours to judge.
    doNotFollow: { path: 'node_modules' },
    // The examples that are apps of their own (examples/react, examples/vue) install and build there.
    exclude: { path: ['^(node_modules|dist|storybook-static)/', '^examples/[^/]+/(node_modules|dist)/'] },
    // `import type` counts (it is how the layers share their shapes), marked as type-only.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
}
