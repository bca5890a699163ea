/**
 * Trips whose seller buys from a remote supplier (test/browser/api-fixture.ts's `slow_sandbox`: the sandbox
 * airline behind a search that runs in the background, as Duffel's does): the search answers after
 * `delayMs`, or fails with `supplier_timeout` (`fail: 'first'`: the trip's first search only).
 * The API itself makes them (GET {baseUrl}/__fixture/trip?remote=1…); the runner's fixture names the API.
 */
export interface Fixture {
  baseUrl: string
  tripId: string
  accessToken: string
  refreshToken: string
}

export interface RemoteTrip {
  delayMs?: number
  fail?: 'first' | 'always'
}

let api: Promise<string> | undefined

export async function remoteTrip(o: RemoteTrip = {}): Promise<Fixture> {
  api ??= fetch('/__fixture/trip?search=false').then(async (r) => ((await r.json()) as Fixture).baseUrl)
  const q = new URLSearchParams({ remote: '1', delayMs: String(o.delayMs ?? 0), ...(o.fail ? { fail: o.fail } : {}) })
  const res = await fetch(`${await api}/__fixture/trip?${q}`)
  if (!res.ok) throw new Error(`remote fixture: ${res.status} ${await res.text()}`)
  return (await res.json()) as Fixture
}
