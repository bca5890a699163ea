// `npm run lint` (part of `npm test`): ESLint's and typescript-eslint's recommended rules over our
// TypeScript and JavaScript. Not type-aware on purpose (no type information: the whole repo lints in
// seconds, and `tsc` checks the types). Each rule turned off or narrowed below says why.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'
import lit from 'eslint-plugin-lit'
import wc from 'eslint-plugin-wc'

export default tseslint.config(
  {
    // examples/react and examples/vue are apps of their own: `npm run build` there writes their dist/.
    ignores: [
      'node_modules/',
      'dist/',
      'examples/*/dist/',
      'coverage/',
      'storybook-static/',
      'custom-elements.json',
      'data/',
      'tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a value taken only to be left out (`const { basket_item_id: _id, ...rest } = item`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // The Lit elements: eslint-plugin-lit's recommended rules (the html`…` templates: bindings, entities, invalid
    // HTML) and eslint-plugin-wc's (custom element classes and names). wc knows a class for an element by
    // its base, LitElement here (or HTMLElement); the classes built on the mixins (ProductView(LitElement))
    // it does not see, so its rules cover the three that extend LitElement itself.
    files: ['components/**/*.ts'],
    ...lit.configs['flat/recommended'],
    ...wc.configs['flat/recommended'],
    plugins: { ...lit.configs['flat/recommended'].plugins, ...wc.configs['flat/recommended'].plugins },
    rules: { ...lit.configs['flat/recommended'].rules, ...wc.configs['flat/recommended'].rules },
    settings: { wc: { elementBaseClasses: ['LitElement'] } },
  },
  {
    // Plain scripts of pages: the sandbox and ESM examples' and the CSP probe's. `Svc` is the SDK's global (svc.min.js).
    files: ['examples/**/*.js', 'test/browser/fixtures/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, Svc: 'readonly' } },
  },
  {
    // The demo checkout's page (examples/seller-checkout/app, bundled into /demo/app.js): browser code that
    // takes the SDK from its <script> tag (window.Svc, typed by sdk/), so it imports the SDK's types only (a
    // value import would bundle a second SDK into the page), and nothing that runs on a server. `npm run
    // lint:deps` checks the same of the whole import graph.
    files: ['examples/seller-checkout/app/**/*.ts'],
    languageOptions: { globals: globals.browser },
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/sdk/*', '**/client/*', '**/components/*'],
              allowTypeImports: true,
              message: 'The page has the SDK from its <script> tag (window.Svc): import its types only.',
            },
            {
              group: ['node:*', 'fastify', '**/server/*', '**/core/*', '**/mock-server/*', '../*.ts'],
              message:
                'Browser code: nothing of the server, the backend (examples/seller-checkout/backend.ts) or Node.',
            },
          ],
        },
      ],
    },
  },
  {
    // The operator console (console/, bundled into /console/assets/console.js): Lit elements in the browser, held
    // to lit's and wc's rules as the widgets are; it imports the widgets' theme tokens and core's types only (a
    // value import of core/ would bundle the service into the page), nothing of the server or Node. `npm run
    // lint:deps` checks the same of the whole import graph.
    files: ['console/**/*.ts'],
    ...lit.configs['flat/recommended'],
    ...wc.configs['flat/recommended'],
    languageOptions: { globals: globals.browser },
    plugins: { ...lit.configs['flat/recommended'].plugins, ...wc.configs['flat/recommended'].plugins },
    rules: {
      ...lit.configs['flat/recommended'].rules,
      ...wc.configs['flat/recommended'].rules,
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core/*', '**/core/**'],
              allowTypeImports: true,
              message: "The console reads core's types only: its code is the server's.",
            },
            {
              group: [
                'node:*',
                'fastify',
                '**/server/*',
                '**/server/**',
                '**/mock-server/*',
                '**/client/*',
                '**/sdk/*',
              ],
              message:
                "Browser code: the widgets' theme tokens (components/theme.ts) and core's types, nothing else of ours.",
            },
          ],
        },
      ],
    },
    settings: { wc: { elementBaseClasses: ['LitElement', 'ConsolePage', 'TripSection'] } },
  },
  {
    // Tests read the API's JSON answers as `any` to assert on their shape (the code under test is typed
    // strictly, and tsc checks the tests' calls into it).
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Chai's property assertions (`expect(x).to.exist`, `.to.be.true`) are expressions by design: the
    // Chromium suites (test/**/*.browser.test.ts) and their helpers (test/browser/).
    files: ['test/**/*.browser.test.ts', 'test/browser/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
)
