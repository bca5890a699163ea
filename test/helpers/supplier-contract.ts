/**
 * The Supplier contract: every adapter (the sandbox airline, Duffel over its fake, the next airline's)
 * registers these tests with a fixture of its own. The port is core/ports/supplier.ts `Supplier`; what each adapter
 * can do it declares (`capabilities`), and the contract holds it to that declaration: a supplier that sells
 * seats only at booking must refuse a seat that was not handed off, one that cancels must quote refunds, one
 * that does not must say `supplier_does_not_cancel`. Nothing here is skipped for an adapter.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Order } from '../../core/ports/records.ts'
import type { Supplier, SupplierContext, SupplierOffers, SupplierTrip } from '../../core/ports/supplier.ts'
import type { SupplierPassengerOffer } from '../../core/ports/supplier-answers.ts'
import type { BasketItem } from '../../core/schemas/basket.ts'
import { PRODUCT_TYPE_NAMES, type ProductTypeName } from '../../core/schemas/trip.ts'
import { priceFor, seatOfferKey } from '../../core/domain/search.ts'
import { decimalPlaces } from '../../core/domain/money.ts'
import { isSupplierError } from '../../core/ports/supplier-errors.ts'

export interface SupplierFixture {
  supplier: Supplier
  /** A sandbox seller's call, with credentials that fit it. */
  call: SupplierContext
  /**
   * Credentials that fit a sandbox and a live seller, and ones that do not (the other mode's, or none). A
   * simulated supplier has none for a live seller (`live` is then any credentials it is offered).
   */
  credentials: { sandbox: string | null; live: string | null; notForSandbox: string | null; notForLive: string | null }
  /** A trip before it is booked, naming what the supplier sells (two adults and a lap infant, LHR ⇄ JFK). */
  trip(): Promise<SupplierTrip>
  /** A trip naming nothing the supplier knows. */
  unknownTrip(): SupplierTrip
  /**
   * The seller books the trip with the airline itself, handing `handedOff` (items priced from the
   * supplier's offers) over into that booking, and the trip as a fulfill leaves it: tickets booked, with the
   * booking reference.
   */
  book(trip: SupplierTrip, handedOff: BasketItem[]): Promise<SupplierTrip>
  /** How many units the supplier has sold for this trip since `book` (what a fulfill bought, never twice). */
  sold(trip: SupplierTrip): Promise<number>
  /** Makes the supplier's current price of this item's offer another one (a price change at the airline). */
  changePrice(trip: SupplierTrip, item: BasketItem): Promise<void>
}

const PRICING = { currency: 'EUR', markups: {} }
const NOW = new Date()

/** A basket item priced from an offer (what the core makes when the traveller picks it), for this passenger. */
export function itemFrom(
  id: string,
  type: ProductTypeName,
  details: Record<string, unknown>,
  passengerId: string,
  offer: SupplierPassengerOffer,
  refs = offer.refs,
  quantity = 1,
): BasketItem {
  return {
    basket_item_id: id,
    display_name: id,
    product_id: `${id}-product`,
    product_type: type,
    quantity,
    ticket_id: 't1',
    benefits: [],
    price: priceFor(PRICING, type, offer, quantity)!,
    product_details: { ...details, passenger_id: passengerId },
    validity: {
      status: 'valid',
      valid_from: NOW.toISOString(),
      valid_to: new Date(NOW.getTime() + 1_800_000).toISOString(),
    },
    ...(refs?.length ? { supplier: { name: 'contract', service_ids: refs } } : {}),
  }
}

const order = (order_id: string, item: BasketItem): Order => ({
  order_id,
  fulfillment_id: 'f1',
  basket_item_id: item.basket_item_id,
  display_name: item.display_name,
  price: item.price,
  status: 'in_progress',
  created_at: NOW.toISOString(),
  updated_at: NOW.toISOString(),
})

/** A bag the passenger may buy, and its offer key. */
function aBag(offers: SupplierOffers, passengerId: string) {
  const product = offers.products.find(
    (p) => p.product_type === 'bag' && p.per_passenger[passengerId]?.available && !p.included,
  )
  assert.ok(product, `a bag for ${passengerId} is on offer`)
  return { product, offer: product.per_passenger[passengerId]!, key: product.offer_key }
}

/** A seat the passenger may take: its segment, row, column and offer. */
function aSeat(offers: SupplierOffers, passengerId: string) {
  for (const s of offers.seats) {
    for (const deck of s.map.decks) {
      for (const row of deck.rows) {
        for (const seat of row.seats) {
          const offer = seat.band === null ? undefined : s.bands[seat.band]?.[passengerId]
          const ref = seat.refs?.[passengerId]
          if (offer?.available)
            return {
              segment_id: s.segment_id,
              row: row.row,
              column: seat.column,
              offer,
              key: seatOfferKey(s.segment_id, row.row, seat.column),
              refs: ref ? [ref] : undefined,
            }
        }
      }
    }
  }
  assert.fail(`a seat for ${passengerId} is on offer`)
}

export function supplierContract(
  name: string,
  make: () => Promise<SupplierFixture & { close?(): Promise<void> }>,
): void {
  const it = (title: string, fn: (f: SupplierFixture) => Promise<void>) =>
    test(title, async () => {
      const f = await make()
      try {
        await fn(f)
      } finally {
        await f.close?.()
      }
    })

  describe(`${name} supplier contract`, () => {
    it('declares what it can do, coherently', async ({ supplier }) => {
      assert.ok(supplier.name.length > 0)
      const c = supplier.capabilities
      assert.ok(
        c.products.length > 0 && c.products.every((t) => PRODUCT_TYPE_NAMES.includes(t)),
        JSON.stringify(c.products),
      )
      assert.ok(
        c.afterBooking.every((t) => c.products.includes(t)),
        'what it sells after booking, it sells',
      )
      if (c.seatsAtBookingOnly)
        assert.ok(!c.afterBooking.includes('seat'), 'seats only at booking are not sold after it')
    })

    it("takes the credentials of the seller's mode, refuses the other mode's, and a simulated one serves no live seller", async ({
      supplier,
      credentials,
    }) => {
      assert.equal(supplier.credentialsProblem(credentials.sandbox, true), null)
      assert.equal(typeof supplier.credentialsProblem(credentials.notForSandbox, true), 'string')
      assert.equal(typeof supplier.credentialsProblem(credentials.notForLive, false), 'string')
      if (supplier.capabilities.simulated) {
        for (const c of [credentials.live, credentials.sandbox, null])
          assert.equal(typeof supplier.credentialsProblem(c, false), 'string', 'never for a live seller')
      } else {
        assert.equal(supplier.credentialsProblem(credentials.live, false), null)
      }
    })

    it('offers what it declares, priced per passenger in minor units, each offer once', async ({
      supplier,
      call,
      trip,
    }) => {
      const t = await trip()
      const offers = await supplier.search(call, t, [...PRODUCT_TYPE_NAMES])
      const passengers = t.passengers.map((p) => p.passenger_id)
      const check = (o: SupplierPassengerOffer, where: string) => {
        if (!o.available) return assert.equal(o.base, null, where)
        assert.ok(o.base && Number.isSafeInteger(o.base.amount) && o.base.amount >= 0, where)
        assert.equal(o.base.decimal_places, decimalPlaces(o.base.currency), where)
        assert.ok(o.quantity_limit >= 1, where)
      }
      const keys = new Set<string>()
      for (const p of offers.products) {
        assert.ok(supplier.capabilities.products.includes(p.product_type), `${p.product_type} is declared`)
        assert.ok(!keys.has(p.offer_key), `offer key ${p.offer_key} once`)
        keys.add(p.offer_key)
        assert.deepEqual(Object.keys(p.per_passenger).sort(), [...passengers].sort(), p.offer_key)
        for (const [pid, o] of Object.entries(p.per_passenger)) check(o, `${p.offer_key} ${pid}`)
      }
      assert.ok(
        offers.products.some((p) => p.product_type === 'bag'),
        'bags are offered',
      )
      if (supplier.capabilities.products.includes('seat')) {
        assert.ok(offers.seats.length > 0, 'seat maps are offered')
        const segments = t.journeys.flatMap((j) => j.segments.map((s) => s.segment_id))
        for (const s of offers.seats) {
          assert.ok(segments.includes(s.segment_id), s.segment_id)
          for (const [band, per] of Object.entries(s.bands)) {
            assert.deepEqual(Object.keys(per).sort(), [...passengers].sort(), band)
            for (const [pid, o] of Object.entries(per)) check(o, `${band} ${pid}`)
          }
          for (const deck of s.map.decks)
            for (const row of deck.rows)
              for (const seat of row.seats) {
                assert.ok(seat.band === null || s.bands[seat.band], `seat ${row.row}${seat.column} names a band`)
                assert.ok(
                  deck.columns.includes(seat.column),
                  `seat ${row.row}${seat.column} is in a column of its deck`,
                )
              }
        }
      } else {
        assert.deepEqual(offers.seats, [])
      }
      if (offers.expires_at !== undefined)
        assert.ok(Date.parse(offers.expires_at) > Date.now(), 'the offers expire in the future')
    })

    it('searched twice, the same offers keep their keys (a product keeps its id)', async ({ supplier, call, trip }) => {
      const t = await trip()
      const a = await supplier.search(call, t, ['bag', 'seat'])
      const b = await supplier.search(call, t, ['bag', 'seat'])
      assert.deepEqual(
        b.products.map((p) => p.offer_key),
        a.products.map((p) => p.offer_key),
      )
      assert.deepEqual(
        b.seats.map((s) => s.map.key),
        a.seats.map((s) => s.map.key),
      )
    })

    it('a trip it knows nothing of: a remote supplier fails it with a reason, the sandbox airline serves any', async ({
      supplier,
      call,
      unknownTrip,
    }) => {
      const search = supplier.search(call, unknownTrip(), ['bag'])
      if (!supplier.capabilities.remote) return void (await search)
      await assert.rejects(
        search,
        (e: unknown) => isSupplierError(e) && ['not_matched', 'not_found'].includes(e.reason),
      )
    })

    it('a check: the same price is valid, another price is price_changed at the current one, an unknown offer is unavailable', async (f) => {
      const t = await f.trip()
      const offers = await f.supplier.search(f.call, t, ['bag'])
      const bag = aBag(offers, 'p1')
      const item = itemFrom('B1', 'bag', bag.product.product_details, 'p1', bag.offer)
      const ticket = { ...item, basket_item_id: 'T1', product_type: 'ticket' as const, product_details: {} }
      assert.deepEqual(
        (
          await f.supplier.recheck(f.call, t, [
            { item, offer_key: bag.key },
            { item: ticket, offer_key: undefined },
          ])
        ).results,
        [
          { basket_item_id: 'B1', outcome: 'valid' },
          { basket_item_id: 'T1', outcome: 'valid' },
        ],
      )
      await f.changePrice(t, item)
      const [changed] = (await f.supplier.recheck(f.call, t, [{ item, offer_key: bag.key }])).results
      assert.equal(changed?.outcome, 'price_changed')
      assert.ok(changed.outcome === 'price_changed' && changed.base.amount !== bag.offer.base!.amount)
      const gone = (
        await f.supplier.recheck(f.call, t, [
          { item: { ...item, basket_item_id: 'B2' }, offer_key: 'bag:nowhere:nothing' },
        ])
      ).results
      assert.equal(gone[0]?.outcome, 'unavailable')
    })

    it('fulfill after booking: a bag is bought once, however often the order runs', async (f) => {
      const t = await f.trip()
      const bag = aBag(await f.supplier.search(f.call, t, ['bag']), 'p1')
      const item = itemFrom('B1', 'bag', bag.product.product_details, 'p1', bag.offer)
      const booked = await f.book(t, [])
      const first = await f.supplier.fulfill(f.call, booked, order('O1', item), {
        item,
        offer_key: bag.key,
        booked_before: 0,
      })
      assert.equal(first.ok, true, JSON.stringify(first))
      assert.equal(await f.sold(booked), 1)
      const again = await f.supplier.fulfill(f.call, booked, order('O1', item), {
        item,
        offer_key: bag.key,
        booked_before: 0,
      })
      assert.deepEqual(again.ok === true && again.reference, first.ok === true && first.reference, 'the same answer')
      assert.equal(await f.sold(booked), 1, 'never bought twice')
    })

    it('seats: sold after booking, or only when handed off into the booking, as declared', async (f) => {
      /** A trip with a seat for p1 picked from its offers, and the call that orders it. */
      const picked = async () => {
        const t = await f.trip()
        const seat = aSeat(await f.supplier.search(f.call, t, ['seat']), 'p1')
        const item = itemFrom(
          'S1',
          'seat',
          { segment_id: seat.segment_id, row: seat.row, column: seat.column },
          'p1',
          seat.offer,
          seat.refs,
        )
        const order_ = (trip: SupplierTrip) =>
          f.supplier.fulfill(f.call, trip, order('O1', item), { item, offer_key: seat.key, booked_before: 0 })
        return { t, item, order: order_ }
      }
      const plain = await picked()
      if (f.supplier.capabilities.seatsAtBookingOnly) {
        assert.deepEqual(await plain.order(await f.book(plain.t, [])), { ok: false, reason: 'seat_requires_booking' })
        const handed = await picked()
        const booked = await f.book(handed.t, [handed.item])
        assert.equal((await handed.order(booked)).ok, true, 'a seat handed off into the booking is there')
        assert.equal(await f.sold(booked), 0, 'and nothing was bought for it')
      } else {
        assert.equal((await plain.order(await f.book(plain.t, []))).ok, true)
      }
    })

    it('cancellation: a refund quoted, or every quote saying the supplier does not cancel, as declared', async (f) => {
      const t = await f.trip()
      const bag = aBag(await f.supplier.search(f.call, t, ['bag']), 'p1')
      const item = itemFrom('B1', 'bag', bag.product.product_details, 'p1', bag.offer)
      const o = { ...order('O1', item), status: 'succeeded' as const }
      const [quote] = await f.supplier.quoteCancellation(f.call, t, [{ order: o, item }], NOW)
      const cancelled = await f.supplier.cancel(f.call, t, { order: o, item }, NOW)
      if (f.supplier.capabilities.cancels) {
        assert.equal(quote?.cancellable, true, JSON.stringify(quote))
        assert.ok(quote.refund && quote.refund.amount > 0)
        assert.equal(cancelled.ok, true)
      } else {
        assert.deepEqual(quote, {
          order_id: 'O1',
          cancellable: false,
          refund: null,
          reason: 'supplier_does_not_cancel',
        })
        assert.deepEqual(cancelled, { ok: false, reason: 'supplier_does_not_cancel' })
      }
    })
  })
}
