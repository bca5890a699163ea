/**
 * Every call to a trip's supplier, recorded on the trip's timeline (kind `supplier_call`) and told to the
 * host's observers (the server logs each as a line). A call is held here until the next write of its trip,
 * which stores it with the write's other effects (no write of its own: POST trip's search is in its one
 * transaction); a call no write follows (a job that failed before changing the trip) is written alone
 * when the job ends (`flush`), or shortly after.
 */
import type { SupplierCallDetail, TripEventInput } from '../ports/records.ts'
import type { Supplier, SupplierContext, SupplierRequest, SupplierTrip } from '../ports/supplier.ts'
import { supplierFailureOf } from '../ports/supplier-errors.ts'
import { supplierCallEvent } from '../domain/trip-events.ts'
import type { Ports } from './dependencies.ts'
import type { Observers } from './observe.ts'

export type { SupplierCallReport } from './observe.ts'

/** How long a call no write took along waits before it is written alone. */
const FLUSH_MS = 1_000

const now = (): number => globalThis.performance.now()

export class SupplierCalls {
  readonly #ports: Pick<Ports, 'store' | 'clock'>
  readonly #observers: Observers
  #pending = new Map<string, TripEventInput[]>()
  #timer: ReturnType<typeof setTimeout> | null = null

  constructor(ports: Pick<Ports, 'store' | 'clock'>, observers: Observers) {
    this.#ports = ports
    this.#observers = observers
  }

  /** The calls of `tripId` not stored yet, taken: the caller stores them with its write (or gives them back). */
  take(tripId: string): TripEventInput[] {
    const calls = this.#pending.get(tripId)
    if (!calls) return []
    this.#pending.delete(tripId)
    return calls
  }

  /** Calls taken for a write that did not happen, held again (before any made since). */
  giveBack(tripId: string, calls: TripEventInput[]): void {
    if (calls.length) this.#pending.set(tripId, [...calls, ...(this.#pending.get(tripId) ?? [])])
  }

  /** Writes the calls of `tripId` (of every trip, without it) that no write took along. */
  async flush(tripId?: string): Promise<void> {
    const calls = tripId ? this.take(tripId) : [...this.#pending.keys()].flatMap((id) => this.take(id))
    if (calls.length) await this.#ports.store.appendTripEvents(calls)
  }

  /** `supplier`, each of whose calls for a trip is recorded: the requests it reports, or the call itself when it reports none. */
  recorded(supplier: Supplier): Supplier {
    const record = <T>(
      operation: string,
      ctx: SupplierContext,
      trip: SupplierTrip,
      orderId: string | undefined,
      run: (ctx: SupplierContext) => Promise<T>,
    ): Promise<T> => {
      let reported = 0
      const owner = { trip_id: trip.trip_id, seller_id: ctx.seller_id }
      const note = (r: SupplierRequest) => {
        reported++
        this.#note(owner, supplier.name, orderId, { ...r, operation })
      }
      const started = now()
      const whole = (outcome: string) => {
        if (reported === 0)
          note({ method: operation, path: supplier.name, status: null, duration_ms: elapsed(started), outcome })
      }
      return run({ ...ctx, observe: note }).then(
        (answer) => {
          whole(outcomeOf(answer))
          return answer
        },
        (e: unknown) => {
          whole(supplierFailureOf(e))
          throw e
        },
      )
    }
    return {
      name: supplier.name,
      capabilities: supplier.capabilities,
      credentialsProblem: (c, sandbox) => supplier.credentialsProblem(c, sandbox),
      search: (ctx, trip, types) => record('search', ctx, trip, undefined, (c) => supplier.search(c, trip, types)),
      recheck: (ctx, trip, items) => record('recheck', ctx, trip, undefined, (c) => supplier.recheck(c, trip, items)),
      fulfill: (ctx, trip, order, item) =>
        record('fulfill', ctx, trip, order.order_id, (c) => supplier.fulfill(c, trip, order, item)),
      quoteCancellation: (ctx, trip, orders, at) =>
        record('quote_cancellation', ctx, trip, undefined, (c) => supplier.quoteCancellation(c, trip, orders, at)),
      cancel: (ctx, trip, o, at) =>
        record('cancel', ctx, trip, o.order.order_id, (c) => supplier.cancel(c, trip, o, at)),
    }
  }

  #note(
    owner: { trip_id: string; seller_id: string },
    name: string,
    orderId: string | undefined,
    detail: SupplierCallDetail,
  ): void {
    const call: SupplierCallDetail = {
      method: detail.method,
      path: detail.path.split('?')[0]!,
      status: detail.status,
      duration_ms: Math.round(detail.duration_ms),
      ...(detail.request_id ? { request_id: detail.request_id } : {}),
      outcome: detail.outcome,
      operation: detail.operation,
    }
    const at = this.#ports.clock.now().toISOString()
    const list = this.#pending.get(owner.trip_id)
    const event = supplierCallEvent(owner, at, { ...call, ...(orderId ? { order_id: orderId } : {}) })
    if (list) list.push(event)
    else this.#pending.set(owner.trip_id, [event])
    this.#observers.supplierCalled({
      ...call,
      supplier: name,
      seller_id: owner.seller_id,
      trip_id: owner.trip_id,
      ...(orderId ? { order_id: orderId } : {}),
    })
    this.#later()
  }

  /** Calls no write takes along within FLUSH_MS are written alone; a failure to is not the call's (they are a record). */
  #later(): void {
    if (this.#timer) return
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.flush().catch(() => {})
    }, FLUSH_MS)
    // A process is not kept alive for a record of calls; a browser's timer has no unref.
    ;(this.#timer as { unref?: () => void }).unref?.()
  }
}

const elapsed = (started: number) => now() - started

/** What an answer says of the call: `ok`, or the reason of an outcome that failed (fulfill, cancel). */
function outcomeOf(answer: unknown): string {
  if (answer && typeof answer === 'object' && 'ok' in answer) {
    const a = answer as { ok: unknown; reason?: unknown }
    if (a.ok === true) return 'ok'
    return typeof a.reason === 'string' ? a.reason : String(a.ok)
  }
  return 'ok'
}
