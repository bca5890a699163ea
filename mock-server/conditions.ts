/**
 * What the sandbox's API does not produce on demand, as `fetch` wrappers around it (or around any fetch):
 * a network that hangs or fails, and a search that offers nothing of some product types. The stories
 * show those screens with them, and the component tests drive them; every other state (checking, price
 * changes, unavailability, expiry) comes from the API itself.
 */
import type { Search } from '../core/schemas/search.ts'

type Fetch = typeof fetch

/** The global fetch, looked up at call time (a test or MSW may replace it after this module loads). */
const globalFetch: Fetch = (input, init) => fetch(input, init)

/** The URL a fetch call asks for, whether it was given a string, a URL or a Request. */
export const urlOf = (input: RequestInfo | URL) => new URL(String(input instanceof Request ? input.url : input))

/** A JSON answer edited by `edit` (an error answer passes through untouched). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test scenario edits any field of any answer's JSON
export async function rewriteJson(res: Response, edit: (body: any) => unknown): Promise<Response> {
  if (!res.ok) return res
  const body = edit(await res.json())
  return new Response(JSON.stringify(body), { status: res.status, headers: { 'content-type': 'application/json' } })
}

/** A search that offers nothing of these product types (no seat maps either when `seat` is named). */
export function withoutProducts(types: readonly string[], inner: Fetch = globalFetch): Fetch {
  return async (input, init) => {
    const res = await inner(input, init)
    if (!/\/search\/[^/]+$/.test(urlOf(input).pathname)) return res
    return rewriteJson(res, (s: Search) => {
      for (const t of types) delete (s.results.products as Record<string, unknown>)[t]
      if (types.includes('seat')) s.results.seatmaps = []
      return s
    })
  }
}

/** A network that fails (`broken`) until told otherwise. */
export function failingFetch(inner: Fetch = globalFetch): Fetch & { broken: boolean } {
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (f.broken) throw new TypeError('Failed to fetch')
    return inner(input, init)
  }) as Fetch & { broken: boolean }
  f.broken = true
  return f
}

/** A network that never answers while `hanging` (the loading state stays on screen); `release()` lets it through. */
export function hangingFetch(inner: Fetch = globalFetch): Fetch & { hanging: boolean; release(): void } {
  let release: () => void = () => {}
  const gate = new Promise<void>((r) => {
    release = r
  })
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (f.hanging) await gate
    return inner(input, init)
  }) as Fetch & { hanging: boolean; release(): void }
  f.hanging = true
  f.release = () => {
    f.hanging = false
    release()
  }
  return f
}
