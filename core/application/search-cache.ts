/**
 * Searches and seat maps as this process knows them. A search never changes once stored and a seat map is
 * shared by every trip on a flight, so both are read once; rendered bodies are kept with their ETags.
 */
import { LRUCache } from 'lru-cache'
import type { SearchRecord, TripEffects, TripRecord } from '../ports/records.ts'
import type { SupplierSeatMap } from '../ports/supplier-answers.ts'
import { ProblemError } from '../shared/errors.ts'
import { SearchView } from '../domain/search.ts'
import { Rendered } from '../shared/rendered.ts'
import type { Ports } from './dependencies.ts'

const SEAT_MAP_RESEND_MS = 3600_000

export class SearchCache {
  readonly #ports: Ports
  /** A view also keeps its product ids and prices, worked out once. */
  #searches = new LRUCache<string, SearchView>({ max: 2_000 })
  #seatMaps = new LRUCache<string, SupplierSeatMap>({ max: 1_000 })
  /** When this process last stored each seat map: one is sent to the store at most hourly, not with every trip. */
  #seatMapsStored = new LRUCache<string, number>({ max: 10_000 })
  /**
   * Rendered bodies (JSON, ETag and the host's encodings of them) of searches and baskets, bounded by what
   * they weigh in bytes. A basket is kept at its newest version only (keyed by trip), so writes replace
   * their trip's body rather than pile up one per version.
   */
  readonly rendered = new LRUCache<string, Rendered>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (r) => r.weight })

  constructor(ports: Ports) {
    this.#ports = ports
  }

  /** The body kept under `key` if it is still the one named `etag`; else `json()`, rendered and kept in its place. */
  renderOnce(key: string, etag: string, json: () => string): Rendered {
    let rendered = this.rendered.get(key)
    if (rendered?.etag !== etag) this.rendered.set(key, (rendered = new Rendered(json(), etag)))
    return rendered
  }

  /** The trip's search `searchId` with its seat maps, kept in memory once read (a search never changes). */
  async view(trip: TripRecord, searchId: string): Promise<SearchView> {
    const hit = this.#searches.get(searchId)
    if (hit) {
      if (hit.record.trip_id !== trip.trip_id)
        throw new ProblemError('not_found', `Search ${searchId} does not exist for this trip.`)
      return hit
    }
    const { store } = this.#ports
    const record = await store.getSearch(searchId)
    if (!record || record.trip_id !== trip.trip_id)
      throw new ProblemError('not_found', `Search ${searchId} does not exist for this trip.`)
    const keys = SearchView.mapKeys(record)
    const missing = keys.filter((k) => !this.#seatMaps.has(k))
    if (missing.length) for (const m of await store.getSeatMaps(missing)) this.#seatMaps.set(m.key, m)
    const maps = new Map<string, SupplierSeatMap>()
    for (const k of keys) {
      const m = this.#seatMaps.get(k)
      if (!m) throw new Error(`seat map ${k} of search ${searchId} is missing from the store`)
      maps.set(k, m)
    }
    const view = new SearchView(record, trip, maps)
    if (record.status !== 'in_progress') this.#searches.set(searchId, view)
    return view
  }

  /**
   * What storing a search brings along: the search, and the seat maps it names that this process has not
   * stored within the hour (the store then refreshes a map's use at most hourly too, and retention only
   * removes maps unused for RETENTION_SEARCH_HOURS ≥ 2, so a map sent within the hour is still there).
   */
  effects(found: { search: SearchRecord; seatMaps: SupplierSeatMap[] } | null): TripEffects {
    if (!found) return {}
    const now = this.#ports.clock.now().getTime()
    const seatMaps = found.seatMaps.filter((m) => {
      const at = this.#seatMapsStored.get(m.key)
      return at === undefined || now - at >= SEAT_MAP_RESEND_MS || now < at
    })
    return { search: found.search, seatMaps }
  }

  /** Notes the seat maps of a write that succeeded. */
  stored(effects: TripEffects): void {
    const now = this.#ports.clock.now().getTime()
    for (const m of effects.seatMaps ?? []) {
      this.#seatMapsStored.set(m.key, now)
      this.#seatMaps.set(m.key, m)
    }
  }
}
