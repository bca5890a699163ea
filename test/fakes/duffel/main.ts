/**
 * The fake Duffel API as a process, to try the Duffel supplier (or Duffel's own docs) by hand without
 * reaching api.duffel.com:
 *
 *   node --import tsx test/fakes/duffel/main.ts [--port 4010]
 *
 * It seeds one test-mode offer (LHR→JFK on BA 117, two adults and an infant without a seat, 30 days from
 * now) and one order booked from it, prints their ids with a ready test token, and logs every request.
 * Point the service at it with DUFFEL_API_URL=<the printed url>. Searches with the test token on Duffel's
 * test-mode routes (PVD → RAI, JFK → EWR, LHR → DXB, BTS → MRU, STN → LHR, DXB → AMS) answer as Duffel's test
 * mode does (server.ts's header). It also prints the command that runs the
 * live smoke test (test/live/duffel.live.ts: search, book, fulfill) against it rather than Duffel:
 *
 *   DUFFEL_API_URL=<url> DUFFEL_TEST_TOKEN=<token> npm run test:duffel-live
 *
 * Ctrl-C stops it.
 */
import { parseArgs } from 'node:util'
import { seatsOf, startFakeDuffel, TEST_ROUTES } from './server.ts'

const { values } = parseArgs({ options: { port: { type: 'string', default: '4010' } } })
const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number (0 picks a free one), not ${values.port}`)
  process.exit(2)
}

let fake
try {
  fake = await startFakeDuffel({ port, log: (line) => console.log(`  ${new Date().toISOString()}  ${line}`) })
} catch (e) {
  console.error(`Could not listen on 127.0.0.1:${port}: ${e instanceof Error ? e.message : String(e)} (try --port 0)`)
  process.exit(1)
}

// Local dates 30 days ahead (Duffel's segment times are local at each airport, without an offset).
const day = new Date(Date.now() + 30 * 24 * 3600_000).toISOString().slice(0, 10)
const { offer, seatMaps } = fake.addOffer({
  passengers: [{ type: 'adult' }, { type: 'adult' }, { type: 'infant_without_seat' }],
  slices: [
    {
      segments: [
        {
          origin: 'LHR',
          destination: 'JFK',
          departing_at: `${day}T11:20:00`,
          arriving_at: `${day}T14:10:00`,
          marketing_carrier: 'BA',
          flight_number: '117',
        },
      ],
    },
  ],
  // A day rather than Duffel's half hour: long enough to follow the docs by hand.
  expires_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
})
// The order holds a checked bag for the first adult and a seat for the second: what a seller's own
// booking with services looks like (`ser_…`), next to the bags it may still add (`aso_…`: British Airways
// sells none after booking at Duffel, so the fake is told to, for the after-booking flow to be tried).
const [first, second] = offer.passengers
const bag = offer.available_services.find(
  (s) => s.passenger_ids[0] === first?.id && s.type === 'baggage' && s.metadata.type === 'checked',
)
const seat = seatsOf(seatMaps)
  .flatMap((x) => x.seat.available_services)
  .find((s) => s.passenger_id === second?.id)
const { order, availableServices } = fake.bookOrder(offer.id, {
  services: [bag, seat].flatMap((s) => (s ? [s.id] : [])),
  postBookingBags: true,
})

const h = `-H "Authorization: Bearer ${fake.token}" -H "Duffel-Version: v2"`
console.log(`Fake Duffel API (v2) on ${fake.url}

  DUFFEL_API_URL=${fake.url}
  test token:         ${fake.token}   (balance ${fake.balance(fake.token).amount} ${fake.balance(fake.token).currency})
  offer:              ${offer.id}   LHR→JFK BA 117 on ${day}, 2 adults + 1 infant, ${offer.total_amount} ${offer.total_currency}, expires ${offer.expires_at}
  order:              ${order.id}   booking reference ${order.booking_reference}, ${order.services.length} services booked, ${availableServices.length} bags still for sale

  curl -s ${h} "${fake.url}/air/offers/${offer.id}?return_available_services=true"
  curl -s ${h} "${fake.url}/air/seat_maps?offer_id=${offer.id}"
  curl -s ${h} "${fake.url}/air/orders?booking_reference=${order.booking_reference}"
  curl -s ${h} "${fake.url}/air/orders/${order.id}/available_services"
  curl -s ${h} -H "Content-Type: application/json" "${fake.url}/air/offer_requests?return_offers=true" \\
    -d '{"data":{"slices":[{"origin":"LHR","destination":"JFK","departure_date":"${day}"}],"passengers":[{"type":"adult"}],"cabin_class":"economy"}}'

Duffel's test-mode routes (a search whose first slice is one of these, with a test token; see server.ts):

${Object.entries(TEST_ROUTES)
  .map(([route, { name }]) => `  ${route.replace('-', ' → ')}  ${name}`)
  .join('\n')}

The live smoke test (test/live/duffel.live.ts) against this fake:

  DUFFEL_API_URL=${fake.url} DUFFEL_TEST_TOKEN=${fake.token} npm run test:duffel-live

Requests:`)

const stop = () => {
  void fake.close().then(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
