// rollup plugin of rollup.config.mjs (the npm package's ESM build); test: test/scripts/rollup/element-registrations.test.ts.
import { join, relative, sep } from 'node:path'

/** A custom element of ours opened in a template's text: `<svc-price …`. */
const OPEN_TAG = /<(svc-[a-z0-9]+(?:-[a-z0-9]+)*)(?=[\s/>])/g

/**
 * The svc elements a module's templates draw: the `<svc-…` tags in the text of its tagged templates
 * (html`…`, svg`…`), not those its comments or plain strings name (an error message saying `<svc-upsell>`).
 * @param {import('estree').Node} ast the module as rollup parsed it
 * @returns {Set<string>}
 */
export function renderedTags(ast) {
  const tags = new Set()
  const walk = (node) => {
    if (Array.isArray(node)) {
      node.forEach(walk)
      return
    }
    if (!node || typeof node.type !== 'string') return
    if (node.type === 'TaggedTemplateExpression') {
      for (const q of node.quasi.quasis) for (const [, tag] of q.value.raw.matchAll(OPEN_TAG)) tags.add(tag)
    }
    for (const [key, value] of Object.entries(node))
      if (key !== 'type' && value && typeof value === 'object') walk(value)
  }
  walk(ast)
  return tags
}

/**
 * Fails the build when a module draws an element that it does not make sure is registered. docs/sdk.md
 * promises that `svc-ancillaries/elements/<tag>.js` registers its element "and the ones it renders"; a view
 * whose template draws `<svc-price>` without importing components/price/price.ts leaves an empty tag on a
 * page that imports its entry alone (a seller's Vite app), though it works wherever something else
 * registered it first (the SDK, `svc-ancillaries/elements`, the test pages, or the card display's frames,
 * which a lazy import brings only to a card or a dialog: an embedded view never loads them).
 *
 * So every module whose templates draw `<svc-x>` must reach svc-x's registration module through static
 * imports (it is then registered before the module runs), or import that module dynamically itself, as
 * `<svc-upsell>` does its lazy views (it draws one only once its import has settled: ../../components/internal/lazy.ts).
 * What another module imports lazily does not count. The rule holds for each module, so it holds for
 * every entry, and for every other importer of the module (Storybook, a test page) as well.
 * @param {{ root: string, elements: Record<string, string> }} opts `root`: the repository; `elements`: tag →
 *   registration module, relative to root (elementEntries)
 * @returns {import('rollup').Plugin}
 */
export function elementRegistrations({ root, elements }) {
  const registrationOf = new Map(Object.entries(elements).map(([tag, src]) => [tag, join(root, src)]))
  /** Module id → the tags its templates draw (only modules that draw any). */
  const drawn = new Map()
  const name = (id) => relative(root, id).split(sep).join('/')
  return {
    name: 'svc-element-registrations',
    buildStart() {
      drawn.clear()
    },
    moduleParsed(info) {
      const tags = renderedTags(info.ast)
      if (tags.size > 0) drawn.set(info.id, tags)
    },
    buildEnd(error) {
      if (error) return
      /** The modules `from` reaches, itself included: by static imports, or also by dynamic ones. */
      const reach = (from, dynamic) => {
        const reached = new Set()
        const queue = [from]
        for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
          if (reached.has(id)) continue
          reached.add(id)
          const info = this.getModuleInfo(id)
          if (info) queue.push(...info.importedIds, ...(dynamic ? info.dynamicallyImportedIds : []))
        }
        return reached
      }
      const entries = [...this.getModuleIds()]
        .filter((id) => this.getModuleInfo(id)?.isEntry)
        .map((id) => [id, reach(id, true)])
      const problems = []
      for (const [id, tags] of drawn) {
        const statically = reach(id, false)
        const lazily = this.getModuleInfo(id)?.dynamicallyImportedIds ?? []
        for (const tag of tags) {
          const registration = registrationOf.get(tag)
          if (!registration)
            problems.push(`${name(id)} draws <${tag}>, which no components/ module registers (define('${tag}', …))`)
          else if (!statically.has(registration) && !lazily.includes(registration)) {
            const affected = entries.filter(([, reached]) => reached.has(id)).map(([entry]) => name(entry))
            problems.push(
              `${name(id)} draws <${tag}> but does not import ${name(registration)}, which registers it (entries that reach it: ${affected.join(', ')})`,
            )
          }
        }
      }
      if (problems.length > 0)
        this.error(
          `a template draws an element its module does not register (docs/sdk.md: each entry registers the elements it renders):\n  ${problems.join('\n  ')}`,
        )
    },
  }
}
