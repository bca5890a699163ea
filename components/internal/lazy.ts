/**
 * Code that arrives when a widget first needs it: the seat map, the option cards, and the card and modal
 * displays (their frames and the dialog) are not needed for the first bag control, so svc.min.js leaves
 * them out and fetches each from its own file the first time a widget shows it (rollup.config.mjs turns
 * each `load` below, a dynamic import, into that fetch; in the ESM build it stays a dynamic import, and
 * where the code is registered already, as `svc-ancillaries/elements` does, nothing loads).
 *
 * Each loads once per page, whoever asks; every host that asked re-renders when it has settled.
 * Meanwhile the host shows its loading state, and after a failed load its error state, whose "Try again"
 * asks again (`loadLazy(lazy, host, true)`).
 */
import type { ReactiveControllerHost } from 'lit'
import { SvcError } from '../../client/errors.ts'
import type { OffersState } from '../../client/session.ts'

/** Code that may not be there yet: what it is (for errors), whether it is there, and the import that brings it. */
export interface Lazy {
  readonly name: string
  ready(): boolean
  load(): Promise<unknown>
}

/** A custom element that may not be registered yet, and the import that registers it. */
export const lazyElement = (tag: string, load: () => Promise<unknown>): Lazy => ({
  name: `<${tag}>`,
  ready: () => !!customElements.get(tag),
  load,
})

const READY: OffersState = { status: 'ready', error: null }
const LOADING: OffersState = { status: 'loading', error: null }
/** Loads under way, with the hosts to re-render when each settles. */
const waiting = new Map<Lazy, Set<ReactiveControllerHost>>()
/** The last failed load of each, kept (the same error object) until "Try again". */
const failed = new Map<Lazy, OffersState>()

/** Where `lazy` stands: ready once it is there, else loading, or the failed load's error. */
export function lazyState(lazy: Lazy): OffersState {
  return lazy.ready() ? READY : (failed.get(lazy) ?? LOADING)
}

/**
 * Starts loading `lazy` unless it is there or loading already; `host` re-renders when the load settles.
 * A failed load is not repeated unless `again` (the error state's "Try again").
 */
export function loadLazy(lazy: Lazy, host: ReactiveControllerHost, again = false) {
  if (lazy.ready() || (failed.has(lazy) && !again)) return
  let hosts = waiting.get(lazy)
  if (!hosts) {
    waiting.set(lazy, (hosts = new Set()))
    // "Try again": the error state gives way to the loading state.
    if (failed.delete(lazy)) host.requestUpdate()
    const done = hosts
    lazy
      .load()
      .then(() => {
        if (!lazy.ready()) throw new Error('it did not register')
      })
      .catch((e: unknown) => {
        failed.set(lazy, {
          status: 'error',
          error: new SvcError('network', `${lazy.name} did not load (${(e as Error)?.message ?? e})`, { cause: e }),
        })
      })
      .finally(() => {
        waiting.delete(lazy)
        for (const h of done) h.requestUpdate()
      })
  }
  hosts.add(host)
}
