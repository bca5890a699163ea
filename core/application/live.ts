/**
 * Live trips (docs/decisions.md "Live basket updates"): which trips this process has event streams open on,
 * and waking those streams when a trip changes, wherever the change was made.
 * - A change made in this process (TripCache.mutate) wakes its followers at once.
 * - A change made by another process reaches them through the store's change feed where it has one
 *   (PostgreSQL LISTEN/NOTIFY, the in-memory store), and otherwise through a version check of the
 *   followed trips every `pollMs`: SQLite has no feed, and its worker may run in another process.
 */
import type { Store } from '../ports/store.ts'
import type { Ports } from './dependencies.ts'
import type { TripCache } from './trip-cache.ts'

/** One open stream on a trip: woken on a change, told to end when a newer stream takes its place. */
export interface Follower {
  wake(): void
  evict(): void
}

/** Streams per trip and process: a ninth ends the oldest, so tabs left open or reconnects that never closed cannot pile up. */
export const MAX_STREAMS_PER_TRIP = 8

export class LiveTrips {
  readonly #store: Store
  readonly #trips: TripCache
  readonly #pollMs: number
  /** Followers by trip id (a Map: any id is just a key), each trip's in the order they came. */
  #followers = new Map<string, Set<Follower>>()
  /** The version each followed trip was last known at here (SQLite's version check compares with it). */
  #versions = new Map<string, number>()
  #feed: Promise<(() => Promise<void>) | null> | null = null
  #poll: ReturnType<typeof setInterval> | null = null

  constructor(ports: Ports, trips: TripCache, pollMs: number) {
    this.#store = ports.store
    this.#trips = trips
    this.#pollMs = pollMs
  }

  /** Starts waking `f` on every change of the trip after `version` (what the stream has read); returns the way to stop. */
  follow(tripId: string, version: number, f: Follower): () => void {
    let set = this.#followers.get(tripId)
    if (!set) this.#followers.set(tripId, (set = new Set()))
    this.#versions.set(tripId, Math.max(version, this.#versions.get(tripId) ?? 0))
    set.add(f)
    if (set.size > MAX_STREAMS_PER_TRIP) {
      const oldest = set.values().next().value!
      set.delete(oldest)
      oldest.evict()
    }
    this.#start()
    return () => {
      set.delete(f)
      if (set.size === 0 && this.#followers.get(tripId) === set) {
        this.#followers.delete(tripId)
        this.#versions.delete(tripId)
      }
    }
  }

  /** Streams open in this process (for /metrics and for tests that no stream outlives its client). */
  get streams(): number {
    let n = 0
    for (const set of this.#followers.values()) n += set.size
    return n
  }

  /** A trip changed (here, or as the feed or the version check found): wakes its followers; null wakes all. */
  changed(tripId: string | null): void {
    const sets = tripId === null ? [...this.#followers.values()] : [this.#followers.get(tripId) ?? []]
    for (const set of sets) for (const f of set) f.wake()
  }

  /** Ends every stream and stops listening (the host is closing). */
  async close(): Promise<void> {
    for (const set of this.#followers.values()) for (const f of set) f.evict()
    this.#followers.clear()
    if (this.#poll) clearInterval(this.#poll)
    this.#poll = null
    const stop = await this.#feed
    this.#feed = null
    await stop?.()
  }

  /** The feed is opened on the first stream (a process that serves none holds no listening connection). */
  #start(): void {
    if (this.#feed) return
    const watch = this.#store.watchTrips?.bind(this.#store)
    // Once listening, every stream looks again: a change made while the feed was connecting sent no word.
    this.#feed = watch
      ? watch((tripId) => this.changed(tripId)).then(
          (stop) => {
            this.changed(null)
            return stop
          },
          () => null,
        )
      : Promise.resolve(null)
    void this.#feed.then((stop) => {
      if (stop || this.#poll) return
      this.#poll = setInterval(() => void this.#check(), this.#pollMs)
      // A stream keeps the process busy through its socket; the check alone must not keep it alive.
      ;(this.#poll as { unref?: () => void }).unref?.()
    })
  }

  /** The version check: one cheap query per followed trip (no document read unless it moved). */
  async #check(): Promise<void> {
    for (const tripId of [...this.#followers.keys()]) {
      try {
        const version = (await this.#trips.read(tripId))?.version ?? -1
        // A write made here woke the streams already; waking them again costs each a version check, no event.
        if (!this.#followers.has(tripId) || this.#versions.get(tripId) === version) continue
        this.#versions.set(tripId, version)
        this.changed(tripId)
      } catch {
        // The next tick tries again; a store that stays down ends the streams through their own reads.
      }
    }
  }
}
