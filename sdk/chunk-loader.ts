/**
 * The module loader at the head of svc.min.js (rollup.config.mjs compiles this file and puts it in front
 * of the bundle; nothing imports it).
 *
 * rollup writes svc.min.js and its chunks (`chunks/<name>-<hash>.js` beside it: the seat map, the option
 * cards, the dialog) as AMD modules that call `self[Symbol.for('svc.v2.2.define')](deps, factory)`:
 * - the bundle's own call runs its factory at once (its only imports are `require` and `exports`), so
 *   `window.Svc` is there when the script tag has run, as it always was;
 * - a dynamic import in the bundle becomes `require([chunk])`: the chunk is fetched with a `<script>` tag
 *   (which works from a page opened from disk, and under a CSP that allows the SDK's origin), resolved
 *   against the URL of the script that asks, and runs with the bundle's exports as its imports: the same
 *   Lit, element classes and context keys, one copy of each per page. A failed fetch is forgotten, so
 *   asking again ("Try again") fetches it again.
 *
 * A chunk's name is `<name>-<sha256 of its bytes, base64url>.js` (rollup.config.mjs), and the loader
 * fetches it with that digest as its Subresource Integrity, so a page that pins svc.min.js with
 * `integrity=` runs no chunk but the ones that build made. Not from a page opened from disk: a file: URL
 * cannot be fetched with CORS, which integrity needs (and no network is in the way there).
 *
 * The hook is a non-enumerable property under a registered symbol: nothing a page's own code sees on
 * `window` or could collide with. A second copy of svc.min.js on the page uses the first one's loader.
 */
type Exports = Record<string, unknown>
type Factory = (...modules: unknown[]) => void
type Require = (ids: string[], done: (...m: Exports[]) => void, fail: (e: unknown) => void) => void

const KEY = Symbol.for('svc.v2.2.define')
const g = self as unknown as Record<symbol, unknown>

if (!g[KEY]) {
  /** Modules by URL: the bundle (under the URL its chunks name it by: `../svc.min`), and each chunk once asked for. */
  const modules = new Map<string, Promise<Exports>>()
  /** The chunk scripts on their way, each with where its module goes. */
  const pending = new WeakMap<Element, (m: Promise<Exports>) => void>()
  /** Failed fetches by URL: a retry asks for `?retry=<n>`, since Chromium answers the same URL again with the failure it keeps. */
  const failures = new Map<string, number>()

  /** Module `id` (`./chunks/x`, `../svc.min`) of the script at `base`, fetched unless asked for before. */
  const load = (id: string, base: string): Promise<Exports> => {
    const src = new URL(`${id}.js`, base).href
    let m = modules.get(src)
    if (!m) {
      const s = document.createElement('script')
      const failed = failures.get(src)
      const digest = /^https?:.*-([\w-]{43})\.js$/.exec(src)?.[1]
      if (digest) {
        s.integrity = `sha256-${digest.replace(/-/g, '+').replace(/_/g, '/')}`
        s.crossOrigin = 'anonymous'
      }
      modules.set(
        src,
        (m = new Promise((resolve, reject) => {
          pending.set(s, resolve)
          // `load` comes after the chunk's define (and then changes nothing), or instead of it.
          s.onload = s.onerror = () => reject(new Error(src))
          s.src = failed ? `${src}?retry=${failed}` : src
          document.head.append(s)
        })),
      )
      m.catch(() => {
        modules.delete(src)
        failures.set(src, (failed ?? 0) + 1)
        s.remove()
      })
    }
    return m
  }

  const define = (deps: string[], factory: Factory) => {
    const script = document.currentScript as HTMLScriptElement | null
    const base = script?.src || location.href
    const exports: Exports = {}
    const require: Require = (ids, done, fail) => {
      Promise.all(ids.map((id) => load(id, base))).then((m) => done(...m), fail)
    }
    const imports = deps.map((d) => (d === 'exports' ? exports : d === 'require' ? require : load(d, base)))
    const chunk = script && pending.get(script)
    if (chunk) {
      chunk(
        Promise.all(imports).then((m) => {
          factory(...m)
          return exports
        }),
      )
    } else {
      // The bundle (its only imports are require and exports): it runs now. A second copy of it on the
      // page runs too, but the chunks keep importing the first.
      const src = new URL('svc.min.js', base).href
      if (!modules.has(src)) modules.set(src, Promise.resolve(exports))
      factory(...imports)
    }
  }
  Object.defineProperty(g, KEY, { value: define })
}
