/**
 * Trips as this process knows them, and the one way a trip changes: optimistic read-modify-write, with the
 * work a change asks for written in the same transaction.
 */
import { LRUCache } from 'lru-cache'
import {
  bringsAlong,
  type JobRecord,
  type PlainWrite,
  type TripEffects,
  type TripRecord,
  type Versioned,
} from '../ports/records.ts'
import type { RaisedEvent } from '../domain/fulfillment.ts'
import { ProblemError } from '../shared/errors.ts'
import { withStateHash } from '../domain/trip.ts'
import { changedOrders } from '../domain/order-feed.ts'
import type { Ports } from './dependencies.ts'
import type { Principal } from './principal.ts'
import type { SearchCache } from './search-cache.ts'
import { eventJobs } from './jobs/webhook-events.ts'
import { tripEvents } from '../domain/trip-events.ts'
import type { SupplierCalls } from './supplier-calls.ts'

/** What a change to a trip produces: the new trip, the events it raises (stored with it as webhook jobs), and what else it stores with it. */
export type Change =
  | TripRecord
  | { trip: TripRecord; jobs?: JobRecord[]; events?: RaisedEvent[]; effects?: Omit<TripEffects, 'jobs' | 'orders'> }

const MAX_RETRIES = 8

/** A turn's writes: the plain ones by trip (see #write), and a run of each other one. */
interface Turn {
  plain: Map<string, { write: PlainWrite; resolve: (version: number | null) => void; reject: (e: unknown) => void }>
  alone: Array<() => void>
}

/** `f()`'s promise, rejected as well when `f` throws before returning one (as a store's driver may): nothing escapes into the event loop. */
const attempt = <T>(f: () => Promise<T>): Promise<T> =>
  new Promise<T>((resolve) => {
    resolve(f())
  })

/**
 * After the I/O callbacks of this turn of the event loop (Node's setImmediate), so the requests read from
 * every socket that was ready are in it; a browser (the sandbox, whose store is in memory) has no such
 * turn to gather, and reads or writes at once.
 */
const { setImmediate: immediate } = globalThis as { setImmediate?: (f: () => void) => unknown }
const nextTurn: (f: () => void) => void = immediate
  ? (f) => {
      immediate(f)
    }
  : queueMicrotask

export class TripCache {
  readonly #ports: Ports
  readonly #searches: SearchCache
  readonly #calls: SupplierCalls
  /** Trips by id at their last known version (see read). */
  #trips = new LRUCache<string, Versioned<TripRecord>>({ max: 5_000 })
  #written: ((tripId: string) => void)[] = []
  /** The reads of this turn of the event loop, and the store's answer to all of them (see #changed). */
  #asking: { ids: Set<string>; answer: Promise<Map<string, { version: number; value?: TripRecord }>> } | null = null
  /** The writes of this turn of the event loop, made together when it ends (see #write). */
  #writes: Turn | null = null

  constructor(ports: Ports, searches: SearchCache, calls: SupplierCalls) {
    this.#ports = ports
    this.#searches = searches
    this.#calls = calls
  }

  /**
   * A trip as stored now. Trips are kept in memory by version and the store is asked only whether the
   * version moved (another instance wrote), so an unchanged trip costs no document to carry and parse.
   * Kept records are frozen: every rule returns a new trip, and one that mutated a kept copy would fail loudly.
   * Asked at once, unlike a request's `load`: a job, a refresh or the live check reads when it needs to (a
   * refresh that waited for the turn's batch read its trip after concurrent reuses of its token had ended
   * the session it had just won).
   */
  read(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    return this.#read(tripId, (version) =>
      this.#ports.store.getTripsIfChanged([{ tripId, version }]).then((found) => found.get(tripId)),
    )
  }

  async #read(
    tripId: string,
    ask: (keptVersion: number) => Promise<{ version: number; value?: TripRecord } | undefined>,
  ): Promise<Versioned<TripRecord> | undefined> {
    const kept = this.#trips.get(tripId)
    if (!kept) return this.#fetch(tripId)
    const found = await ask(kept.version)
    if (!found) {
      this.#trips.delete(tripId)
      return undefined
    }
    if (found.value) return this.keep({ value: found.value, version: found.version })
    // Unchanged since the version asked about; the copy kept may have moved on since (a write of this
    // process), and a copy at another version is not the one the store vouched for.
    const current = this.#trips.get(tripId)
    return current?.version === found.version ? current : this.#fetch(tripId)
  }

  async #fetch(tripId: string): Promise<Versioned<TripRecord> | undefined> {
    const found = await this.#ports.store.getTrip(tripId)
    if (!found) {
      this.#trips.delete(tripId)
      return undefined
    }
    return this.keep(found)
  }

  /**
   * Whether `tripId` moved from the version kept, asked of the store with every other read of this turn of
   * the event loop: under load a dozen requests arrive in one turn, and one statement (one round trip on
   * PostgreSQL) answers them all. Each read is still asked after it arrived, so it sees every write
   * committed before it. The versions asked are those kept when the question leaves, so a write this
   * process made in between is not read back.
   */
  #changed(tripId: string): Promise<{ version: number; value?: TripRecord } | undefined> {
    let asking = this.#asking
    if (!asking) {
      const ids = new Set<string>()
      const answer = new Promise<void>((resolve) => nextTurn(resolve)).then(() => {
        this.#asking = null
        // A copy evicted meanwhile is asked at version 0, which no trip has: its document comes back.
        return this.#ports.store.getTripsIfChanged(
          [...ids].map((id) => ({ tripId: id, version: this.#trips.get(id)?.version ?? 0 })),
        )
      })
      asking = this.#asking = { ids, answer }
    }
    asking.ids.add(tripId)
    return asking.answer.then((found) => found.get(tripId))
  }

  /** The seller of a trip this process keeps (a job just read it), without asking the store; undefined if not kept. */
  sellerOf(tripId: string): string | undefined {
    return this.#trips.get(tripId)?.value.seller_id
  }

  /** Calls `f` after each write this cache makes (the trip's event streams follow it). */
  onWrite(f: (tripId: string) => void): void {
    this.#written.push(f)
  }

  keep(t: Versioned<TripRecord>): Versioned<TripRecord> {
    deepFreeze(t.value)
    this.#trips.set(t.value.trip_id, t)
    return t
  }

  /**
   * Loads a trip the caller may see; another seller's trip does not exist for it (404, so ids leak nothing).
   * The requests of one turn of the event loop ask the store about their trips together (see #changed).
   */
  async load(p: Principal, tripId: string): Promise<Versioned<TripRecord>> {
    // Checked on the row just read, so a revocation on any instance holds for the next request everywhere.
    return admitted(p, tripId, await this.#read(tripId, () => this.#changed(tripId)))
  }

  /**
   * Optimistic read-modify-write: a concurrent change makes the write fail, and the change is re-applied on
   * fresh state. The jobs a change asks for, the webhook deliveries of the events it raises, and the orders
   * feed's rows of the orders it moved are written in the same transaction as the trip, so a change and its
   * follow-up work are never parted.
   * Without a principal (the job runner) the trip is loaded as the system; an unchanged trip is not written.
   */
  async mutate(
    p: Principal | null,
    tripId: string,
    change: (t: TripRecord) => Change | Promise<Change>,
  ): Promise<TripRecord> {
    return (await this.mutateVersioned(p, tripId, change)).value
  }

  /** `mutate`, answering the version the trip is at after it (what names its rendered bodies). */
  async mutateVersioned(
    p: Principal | null,
    tripId: string,
    change: (t: TripRecord) => Change | Promise<Change>,
  ): Promise<Versioned<TripRecord>> {
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      // The first attempt starts from the trip this process keeps, without asking the store whether it is
      // current: the write is conditional on its version, so a trip another process changed fails it and
      // the next attempt reads (one statement per write instead of two). What writes nothing (a refusal, or
      // no change) is answered only once the store confirms that copy is current.
      const unverified = attempt === 0 ? this.#trips.get(tripId) : undefined
      const loaded = unverified
        ? p
          ? admitted(p, tripId, unverified)
          : unverified
        : p
          ? await this.load(p, tripId)
          : await this.read(tripId)
      if (!loaded) throw new ProblemError('not_found', `Trip ${tripId} does not exist.`)
      let result: Change
      try {
        result = await change(loaded.value)
      } catch (e) {
        if (unverified && (await this.#moved(tripId, unverified.version))) continue
        throw e
      }
      const { trip, jobs = [], events = [], effects = {} } = 'trip' in result ? result : { trip: result }
      if (trip === loaded.value) {
        if (unverified && (await this.#moved(tripId, unverified.version))) continue
        return loaded
      }
      const all = [...jobs, ...(await eventJobs(this.#ports, trip, events))]
      // The state hash is worked out once here, for every read until an item's validity window passes.
      const at = this.#ports.clock.now()
      const stored = withStateHash(trip, at)
      // The orders it created or moved go to the seller's orders feed in the same transaction (core/domain/order-feed.ts).
      const orders = changedOrders(loaded.value, trip)
      // The timeline: the supplier calls made for the trip since its last write, then what this write changed.
      const calls = this.#calls.take(tripId)
      const timeline = [...calls, ...tripEvents(loaded.value, stored, at.toISOString(), effects.search)]
      const written: TripEffects = {
        ...effects,
        ...(all.length ? { jobs: all } : {}),
        ...(orders.length ? { orders } : {}),
        ...(timeline.length ? { events: timeline } : {}),
      }
      let version: number | null
      try {
        version = await this.#write(stored, loaded.version, written)
      } catch (e) {
        this.#calls.giveBack(tripId, calls)
        throw e
      }
      if (version === null) this.#calls.giveBack(tripId, calls)
      else {
        this.#searches.stored(written)
        const kept = this.keep({ value: stored, version })
        for (const f of this.#written) f(tripId)
        return kept
      }
    }
    throw new ProblemError('trip_state_conflict', 'The trip is being changed by other requests; retry the request.')
  }

  /**
   * Makes a write once this turn of the event loop has read every request that arrived in it, with the
   * turn's other writes: interleaving a commit and its response between one socket's callback and the
   * next cost more than the commits did (PUT basket 3,478 → 4,995 req/s on SQLite, docs/performance.md).
   * The plain ones (a basket edit brings nothing along) go to the store in one call, one statement on
   * PostgreSQL (one round trip instead of one a write) and one commit on SQLite; the others, and a trip's
   * second write of the turn, go alone. Each is still conditional on its own version, and committed before
   * its request is answered.
   */
  #write(trip: TripRecord, expectedVersion: number, effects: TripEffects): Promise<number | null> {
    let turn = this.#writes
    if (!turn) {
      const started: Turn = { plain: new Map(), alone: [] }
      turn = this.#writes = started
      nextTurn(() => this.#endTurn(started))
    }
    const { plain, alone } = turn
    return new Promise((resolve, reject) => {
      if (!bringsAlong(effects) && !plain.has(trip.trip_id))
        plain.set(trip.trip_id, {
          write: { trip, expectedVersion, ...(effects.events ? { events: effects.events } : {}) },
          resolve,
          reject,
        })
      else
        alone.push(() => {
          attempt(() => this.#ports.store.updateTrip(trip, expectedVersion, effects)).then(resolve, reject)
        })
    })
  }

  #endTurn(turn: Turn): void {
    this.#writes = null
    for (const run of turn.alone) run()
    const plain = [...turn.plain.values()]
    if (plain.length === 0) return
    const store = this.#ports.store
    attempt(() => store.updateTrips(plain.map((p) => p.write))).then(
      (versions) => plain.forEach((p, i) => p.resolve(versions[i] ?? null)),
      (e: unknown) => {
        // The store wrote none of it (TripStore.updateTrips): each is tried alone, so a write it refuses fails its own request only.
        if (plain.length === 1) plain[0]!.reject(e)
        else
          for (const p of plain)
            attempt(() => store.updateTrip(p.write.trip, p.write.expectedVersion, { events: p.write.events })).then(
              p.resolve,
              p.reject,
            )
      },
    )
  }

  /** Whether the stored trip is no longer at `version` (changed, or gone); `read` keeps what it finds. */
  async #moved(tripId: string, version: number): Promise<boolean> {
    return (await this.read(tripId))?.version !== version
  }
}

/**
 * The trip if `p` may see it: another seller's trip does not exist for it (404, so ids leak nothing), and a
 * revoked session's token is refused. Safe on a kept copy too: a trip's seller never changes, and a family
 * once revoked stays revoked, so a copy that refuses is never wrong to.
 */
function admitted(p: Principal, tripId: string, t: Versioned<TripRecord> | undefined): Versioned<TripRecord> {
  if (!t || t.value.seller_id !== p.seller.seller_id)
    throw new ProblemError('not_found', `Trip ${tripId} does not exist.`)
  if (p.kind === 'access_token' && p.family !== null && t.value.revoked_families?.includes(p.family)) {
    throw new ProblemError(
      'unauthorized',
      'This session was revoked (its refresh token was used twice). Create the trip session again.',
    )
  }
  return t
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
