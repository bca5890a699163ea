/**
 * A trip's event stream (docs/decisions.md "Live basket updates"): what one caller is sent, and when. The
 * streams of a process are woken by LiveTrips (live.ts) when their trip changes.
 */
import type { TripRecord, Versioned } from '../ports/records.ts'
import type { Ports } from './dependencies.ts'
import type { Principal } from './principal.ts'
import type { TripCache } from './trip-cache.ts'
import type { SearchCache } from './search-cache.ts'
import type { LiveTrips } from './live.ts'
import type { Sellers } from './sellers.ts'
import { EventStream } from '../shared/rendered.ts'
import { renderBasket } from './baskets.ts'
import { nextExpiry } from '../domain/trip.ts'

/** What a stream reads with (the context, named by its parts: context.ts builds LiveTrips). */
type Streaming = Ports & { trips: TripCache; searches: SearchCache; live: LiveTrips; sellers: Pick<Sellers, 'get'> }

/** Sent with each event: the trip's version, so a reconnect (Last-Event-ID) resumes from it. */
const event = (name: string, id: number, data: string) => `id: ${id}\nevent: ${name}\ndata: ${data}\n\n`

export interface StreamTiming {
  /** A comment line this often, so proxies and the client see the connection is alive. */
  heartbeatMs: number
  /** The reconnect delay the client is told to use (the SSE `retry:` field). */
  retryMs: number
}

/**
 * The events of one trip for one caller (docs/decisions.md): on connect, unless Last-Event-ID names the
 * trip's current version, its `search` and `basket`; then a `basket` whenever the basket as the API
 * shows it changes (a write anywhere, or an item passing its `valid_to`) and a `search` when the trip's
 * offers were replaced, or its search (a remote supplier's, in the background) has its answer. It ends when the caller's access token expires or its session is revoked (the
 * client reconnects with a fresh token), when its seller is disabled, when the trip is gone, or when the host closes.
 */
/**
 * The trip's current search once it has an answer (`success` or `failed`), as what a `search` event is sent
 * for; null while it has none or its supplier is still searching (a remote supplier's job then ends it).
 */
function answeredSearch(trip: TripRecord): string | null {
  return trip.search_id === null || trip.search_status === 'in_progress'
    ? null
    : `${trip.search_id} ${trip.search_status ?? 'success'}`
}

export function tripEvents(
  ctx: Streaming,
  p: Principal,
  first: Versioned<TripRecord>,
  lastEventId: string | undefined,
  timing: StreamTiming,
): EventStream {
  return new EventStream((signal) => follow(ctx, p, first, lastEventId, timing, signal))
}

async function* follow(
  ctx: Streaming,
  p: Principal,
  first: Versioned<TripRecord>,
  lastEventId: string | undefined,
  timing: StreamTiming,
  signal: AbortSignal,
): AsyncGenerator<string> {
  const tripId = first.value.trip_id
  const bell = new Bell()
  let evicted = false
  const unfollow = ctx.live.follow(tripId, first.version, {
    wake: () => bell.ring(),
    evict: () => {
      evicted = true
      bell.ring()
    },
  })
  const onAbort = () => bell.ring()
  signal.addEventListener('abort', onAbort)
  // An access token's stream ends with the token; an API key's lasts until the client or the host ends it.
  const endsAt = p.kind === 'access_token' ? p.expires_at * 1000 : Infinity
  try {
    yield `retry: ${timing.retryMs}\n\n`
    let t: Versioned<TripRecord> | undefined = first
    let sentEtag: string | null = null
    let sentSearch: string | null | undefined
    if (lastEventId !== undefined && lastEventId === String(first.version)) {
      sentEtag = renderBasket(ctx, first, ctx.clock.now()).etag
      sentSearch = answeredSearch(first.value)
    }
    while (t && !signal.aborted && !evicted) {
      const now = ctx.clock.now()
      if (now.getTime() >= endsAt) return
      const search = answeredSearch(t.value)
      if (search !== sentSearch) {
        sentSearch = search
        if (search !== null) yield event('search', t.version, JSON.stringify({ search_id: t.value.search_id }))
      }
      const basket = renderBasket(ctx, t, now)
      if (basket.etag !== sentEtag) {
        sentEtag = basket.etag
        yield event('basket', t.version, basket.json)
      }
      // Until something changes, an item's validity runs out, the heartbeat is due, or the token expires.
      const expiry = nextExpiry(t.value, now)
      const until = expiry === null ? Infinity : Date.parse(expiry) + 1
      const rang = await bell.wait(
        Math.max(0, Math.min(timing.heartbeatMs, until - now.getTime(), endsAt - now.getTime())),
      )
      if (!rang && !signal.aborted && ctx.clock.now().getTime() < until) yield ': keep-alive\n\n'
      // A disabled seller's streams end (its seller read at most 10 s before): the reconnect gets 403 seller_disabled.
      if ((await ctx.sellers.get(p.seller.seller_id))?.disabled_at !== undefined) return
      t = await ctx.trips.load(p, tripId).catch(() => undefined)
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    bell.ring()
    unfollow()
  }
}

/** Wakes one waiting stream: `wait` resolves true when rung (or rung while it was busy), false on timeout. */
class Bell {
  #rung = false
  #resolve: ((rang: boolean) => void) | null = null

  ring(): void {
    if (this.#resolve) {
      this.#resolve(true)
      this.#resolve = null
    } else this.#rung = true
  }

  wait(ms: number): Promise<boolean> {
    if (this.#rung) {
      this.#rung = false
      return Promise.resolve(true)
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#resolve = null
        resolve(false)
      }, ms)
      this.#resolve = (rang) => {
        clearTimeout(timer)
        resolve(rang)
      }
    })
  }
}
