/**
 * Duffel against the Supplier contract (test/helpers/supplier-contract.ts), over the fake Duffel on loopback
 * (test/fakes/duffel): each trip names an offer the fake holds for the trip's flights and passengers; the
 * seller's booking is the fake's order of that offer, with the handed-off services; what the adapter sold
 * is what the order holds beyond what was booked with it.
 *
 * Then Duffel's access-token rules (duffelTokenProblem), as the operator meets them.
 */
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import type { SupplierTrip } from '../../../../core/ports/supplier.ts'
import type { BasketItem } from '../../../../core/schemas/basket.ts'
import { createDuffelSupplier, duffelTokenProblem } from '../../../../server/suppliers/duffel/supplier.ts'
import { startFakeDuffel, type FakeDuffel } from '../../../fakes/duffel/server.ts'
import { supplierContract } from '../../../helpers/supplier-contract.ts'
import { contractTrip } from '../../../helpers/supplier-trips.ts'
import { duffelOfferFor } from '../../../helpers/duffel.ts'

let fake: FakeDuffel
before(async () => {
  fake = await startFakeDuffel()
})
after(() => fake.close())

/** An offer of the fake for the contract trip's flights and passengers, and the trip naming it. */
export function duffelTrip(f: FakeDuffel, token = f.token): SupplierTrip {
  const offer = duffelOfferFor(f, contractTrip(), { token })
  return contractTrip({ metadata: { duffel_offer_id: offer.offer.id } })
}

const offerOf = (trip: SupplierTrip) => String(trip.tickets[0]!.metadata.duffel_offer_id)
/** Units of services an order holds. */
const units = (orderId: string) => fake.order(orderId).order.services.reduce((n, s) => n + s.quantity, 0)

supplierContract('Duffel (its fake)', async () => {
  /** booking reference → the order, and the units it held when booked (what was handed off). */
  const booked = new Map<string, { orderId: string; units: number }>()
  return {
    supplier: createDuffelSupplier({ baseUrl: fake.url, timeoutMs: 2000 }),
    call: { seller_id: 'seller-1', sandbox: true, credentials: fake.token },
    credentials: {
      sandbox: fake.token,
      live: 'duffel_live_abcdefgh12345678',
      notForSandbox: 'duffel_live_abcdefgh12345678',
      notForLive: fake.token,
    },
    trip: async () => duffelTrip(fake),
    unknownTrip: () => contractTrip({ metadata: { duffel_offer_id: 'off_0000NoSuchOfferAtAll1' } }),
    async book(trip: SupplierTrip, handedOff: BasketItem[]) {
      // An airline that sells bags after booking, as the contract's after-booking case needs (most do not:
      // test/api/duffel.test.ts holds the search of such an order to `not_offered_after_booking`).
      const { order } = fake.bookOrder(offerOf(trip), {
        services: handedOff.flatMap((i) => i.supplier?.service_ids ?? []),
        postBookingBags: true,
      })
      booked.set(order.booking_reference, { orderId: order.id, units: units(order.id) })
      return {
        ...trip,
        tickets: trip.tickets.map((t) => ({
          ...t,
          status: 'booked' as const,
          access_details: { ...t.access_details, record_locator: order.booking_reference },
        })),
      }
    },
    async sold(trip: SupplierTrip) {
      const at = booked.get(trip.tickets[0]!.access_details.record_locator!)!
      return units(at.orderId) - at.units
    },
    async changePrice(_trip: SupplierTrip, item: BasketItem) {
      const unit = item.price.base.in_original_currency
      for (const id of item.supplier!.service_ids)
        fake.priceChange(id, ((unit.amount + 1000) / 10 ** unit.decimal_places).toFixed(unit.decimal_places))
    },
  }
})

// Duffel's access-token rules (server/suppliers/duffel/supplier.ts `duffelTokenProblem`), as the operator meets
// them when a seller's token is set: each refusal names the one rule that failed, and never repeats the token;
// what the rules allow is taken, whatever else it looks like.
test("a token is refused by the rule it breaks, in that rule's words, never echoed", () => {
  const cases: Array<[string | null, boolean, string]> = [
    [null, true, "Duffel needs the seller's own Duffel access token (duffel_test_…)."],
    [null, false, "Duffel needs the seller's own Duffel access token (duffel_live_…)."],
    // The user's case: the prefix is right, the length is not.
    [
      'duffel_test_walk',
      true,
      'Too short: a Duffel access token is at least 20 characters (duffel_test_ and at least 8 more); this one has 16.',
    ],
    [
      'duffel_live_1234567',
      false,
      'Too short: a Duffel access token is at least 20 characters (duffel_live_ and at least 8 more); this one has 19.',
    ],
    [
      'duffel_test_',
      true,
      'Too short: a Duffel access token is at least 20 characters (duffel_test_ and at least 8 more); this one has 12.',
    ],
    [
      'duffel_test_abcd"efgh1234',
      true,
      'After duffel_test_ a Duffel access token has only letters, digits, _ and -; this one has another character (the 17th of the token, e.g. a space or a quote pasted with it).',
    ],
    [
      'duffel_test_ü1234567890',
      true,
      'After duffel_test_ a Duffel access token has only letters, digits, _ and -; this one has another character (the 13th of the token, e.g. a space or a quote pasted with it).',
    ],
    [
      'Duffel_test_abcdefgh1234',
      true,
      'A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.',
    ],
    [
      'duffel_prod_abcdefgh1234',
      true,
      'A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.',
    ],
    [
      '  duffel_test_abcdefgh1234',
      true,
      'A Duffel access token starts with duffel_test_ or duffel_live_; this one does not.',
    ],
    // The mode is named before the rest: a live token for a sandbox seller says so, however short.
    ['duffel_live_x', true, 'A sandbox seller takes a Duffel test token (duffel_test_…), never a live one.'],
    [
      'duffel_test_abcdefgh1234',
      false,
      'A live seller takes a Duffel live token (duffel_live_…): a test token sells nothing real.',
    ],
  ]
  for (const [token, sandbox, why] of cases) {
    const problem = duffelTokenProblem(token, sandbox)
    assert.equal(problem, why, String(token))
    if (token && token.length >= 16) assert.ok(!problem!.includes(token.slice(12)), 'the secret part is never repeated')
  }
})

test("what the rules allow is taken: the shortest, the characters allowed, a real token's length", () => {
  for (const token of [
    'duffel_test_walk1234',
    'duffel_test_a-b_c-d_e',
    `duffel_test_${'A9_-'.repeat(11)}`,
    'duffel_test_________',
  ]) {
    assert.equal(duffelTokenProblem(token, true), null, token)
  }
  assert.equal(duffelTokenProblem('duffel_live_walk1234', false), null)
  // The adapter's own check is this one.
  const duffel = createDuffelSupplier({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 })
  assert.equal(duffel.credentialsProblem('duffel_test_walk', true), duffelTokenProblem('duffel_test_walk', true))
})
