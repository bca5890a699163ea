/**
 * What reaches an airline is what an airline takes, on both hosts: every field that goes into a booking
 * (names, titles, contact details, loyalty and document numbers, dates of birth) refuses control
 * characters, lone surrogates, noncharacters and invisible formatting, with a 400 naming that field, on
 * create, PATCH and fulfill, and changes nothing; names of any script are taken as they are.
 */
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { setupServer } from 'msw/node'
import { tripPayload } from '../helpers/build.ts'
import { CONTACT, fulfillRequest } from '../helpers/flows.ts'
import {
  basicAuth,
  hostsUnderTest,
  json,
  makeTarget,
  watchWrites,
  type HostUnderTest,
  type Req,
  type Target,
} from './support.ts'

const ORIGIN = 'http://airline-fields.sandbox.test'
const msw = setupServer()
before(() => msw.listen({ onUnhandledRequest: 'error' }))
after(() => msw.close())
const { serverHost, sandboxHost } = hostsUnderTest(msw, ORIGIN)

/** NUL, BEL, tab, a lone surrogate, two noncharacters, a right-to-left override, a zero-width space, private use. */
const BAD_TEXT = [
  'A\u0000B',
  'A\u0007B',
  'A\tB',
  '\ud800',
  'A\uffff',
  'A\ufdd0',
  'Ada\u202eecaL',
  'A\u200bB',
  'A\ue000',
]
/** What a name is not, besides those: digits, symbols, markup, a leading space. */
const BAD_NAMES = [...BAD_TEXT, 'R2D2', 'Ada <b>', ' Ada', '-Ada', 'x'.repeat(65)]
const GOOD_NAMES = ['Zoë', "O'Brien", 'O’Brien', 'Nguyễn Văn', '李', 'محمد', 'Anne-Marie', 'St. John', 'Ꮳ', 'Þórunn']

const AGE_LIMIT = ['1800-01-01', '1896-01-01']

/** A field of a request body: where it is (a JSON pointer) and how to put a value there. */
interface Field {
  path: string
  set(body: any, v: string): void
}
const at = (path: string): Field => ({
  path,
  set(body, v) {
    const keys = path.slice(1).split('/')
    let node = body
    for (const k of keys.slice(0, -1)) node = node[k] ??= {}
    node[keys.at(-1)!] = v
  },
})

const NAME_FIELDS = ['/passengers/0/first_names', '/passengers/0/surname']
const TEXT_FIELDS = [
  '/passengers/0/title',
  '/passengers/0/loyalty_programs/0/number',
  '/passengers/0/loyalty_programs/0/program_name',
  '/passengers/0/identity_documents/0/document_number',
  '/passengers/0/identity_documents/0/document_type',
  '/contact_details/contact_details_type',
  '/contact_details/email',
  '/contact_details/address/city',
  '/contact_details/address/street_address_1',
  '/contact_details/address/postal_code',
]

/** A passenger with every airline field filled, valid. */
const fullPassenger = {
  title: 'Ms',
  loyalty_programs: [{ airline_id: 'BA', program_name: 'Executive Club', number: 'BA1234567' }],
  identity_documents: [{ document_type: 'passport', document_number: '123456789' }],
}

const jsonReq = (method: string, url: string, apiKey: string, body: unknown): Req => ({
  method,
  url,
  headers: { authorization: basicAuth(apiKey), 'content-type': 'application/json' },
  body: new TextEncoder().encode(JSON.stringify(body)),
})

for (const make of [serverHost, sandboxHost]) {
  describe(`airline fields on the ${make === serverHost ? 'Fastify server' : 'MSW sandbox'}`, () => {
    let host: HostUnderTest
    let target: Target
    before(async () => {
      host = await make()
      target = await makeTarget(host.send, host.apiKey, host.otherApiKey, host.now, () => host.drain())
    })
    after(() => host.close())

    /** Sends a request that must be refused with a 400 naming `path`, and write nothing. */
    async function refused(req: Req, path: string, what: string) {
      const writes = watchWrites(host.store)
      const res = (await host.send(req))!
      assert.equal(res.status, 400, `${what}: ${res.status}`)
      const problem = json(res)
      assert.ok(
        problem.errors.some((e: { path: string }) => e.path === path),
        `${what}: ${JSON.stringify(problem.errors)}`,
      )
      assert.equal(writes.count, 0, `${what} wrote`)
    }

    const createBody = () => {
      const body: any = tripPayload(host.now)
      Object.assign(body.passengers[0], {
        first_names: 'Ada',
        surname: 'Lovelace',
        date_of_birth: '1985-12-10',
        ...structuredClone(fullPassenger),
      })
      body.contact_details = structuredClone(CONTACT)
      return body
    }

    test('create: each bad value in each field that reaches an airline is a 400 on that field', async () => {
      assert.equal(
        (await host.send(jsonReq('POST', '/v2.2/trip', host.apiKey, createBody())))!.status,
        201,
        'the valid request',
      )
      for (const path of NAME_FIELDS) {
        for (const v of BAD_NAMES) {
          const body = createBody()
          at(path).set(body, v)
          await refused(jsonReq('POST', '/v2.2/trip', host.apiKey, body), path, `${path} = ${JSON.stringify(v)}`)
        }
      }
      for (const path of TEXT_FIELDS) {
        for (const v of BAD_TEXT) {
          const body = createBody()
          at(path).set(body, v)
          await refused(jsonReq('POST', '/v2.2/trip', host.apiKey, body), path, `${path} = ${JSON.stringify(v)}`)
        }
      }
      for (const dob of AGE_LIMIT) {
        const body = createBody()
        body.passengers[0].date_of_birth = dob
        await refused(
          jsonReq('POST', '/v2.2/trip', host.apiKey, body),
          '/passengers/0/date_of_birth',
          `date_of_birth ${dob}`,
        )
      }
    })

    test('create: names of any script, apostrophes, hyphens and dots are taken and read back as sent', async () => {
      for (const name of GOOD_NAMES) {
        const body = createBody()
        body.passengers[0].first_names = name
        const res = (await host.send(jsonReq('POST', '/v2.2/trip', host.apiKey, body)))!
        assert.equal(res.status, 201, `${name}: ${res.raw.toString().slice(0, 300)}`)
        assert.equal(json(res).passengers[0].first_names, name)
      }
      // 130 years before the first departure (30 days from now) is the oldest a traveller may be.
      const body = createBody()
      const departs = new Date(body.tickets[0].journeys[0].segments[0].departure_time)
      body.passengers[0].date_of_birth = `${departs.getUTCFullYear() - 130}-12-31`
      assert.equal((await host.send(jsonReq('POST', '/v2.2/trip', host.apiKey, body)))!.status, 201)
    })

    test('PATCH: the same fields, the same refusals', async () => {
      const url = `/v2.2/trip/${target.trip.trip_id}`
      const patch = (over: Record<string, unknown>) => ({ passengers: [{ passenger_id: 'p1', ...over }] })
      for (const field of ['first_names', 'surname']) {
        for (const v of BAD_NAMES)
          await refused(
            jsonReq('PATCH', url, host.apiKey, patch({ [field]: v })),
            `/passengers/0/${field}`,
            `${field} = ${JSON.stringify(v)}`,
          )
      }
      for (const v of BAD_TEXT) {
        await refused(
          jsonReq('PATCH', url, host.apiKey, patch({ title: v })),
          '/passengers/0/title',
          `title ${JSON.stringify(v)}`,
        )
        await refused(
          jsonReq(
            'PATCH',
            url,
            host.apiKey,
            patch({ loyalty_programs: [{ airline_id: 'BA', program_name: 'Club', number: v }] }),
          ),
          '/passengers/0/loyalty_programs/0/number',
          `number ${JSON.stringify(v)}`,
        )
        await refused(
          jsonReq('PATCH', url, host.apiKey, {
            contact_details: { ...CONTACT, address: { ...CONTACT.address, city: v } },
          }),
          '/contact_details/address/city',
          `city ${JSON.stringify(v)}`,
        )
      }
      for (const dob of AGE_LIMIT)
        await refused(
          jsonReq('PATCH', url, host.apiKey, patch({ date_of_birth: dob })),
          '/passengers/0/date_of_birth',
          `date_of_birth ${dob}`,
        )
    })

    test('fulfill: the same fields, the same refusals', async () => {
      const url = `/v2.2/trip/${target.trip.trip_id}/fulfill`
      const base = () => structuredClone(fulfillRequest(target.trip as never, target.stateHash)) as any
      for (const field of ['first_names', 'surname']) {
        for (const v of BAD_NAMES) {
          const body = base()
          body.passengers[0][field] = v
          await refused(
            jsonReq('POST', url, host.apiKey, body),
            `/passengers/0/${field}`,
            `${field} = ${JSON.stringify(v)}`,
          )
        }
      }
      for (const v of BAD_TEXT) {
        const body = base()
        body.contact_details.address.street_address_1 = v
        await refused(
          jsonReq('POST', url, host.apiKey, body),
          '/contact_details/address/street_address_1',
          `street ${JSON.stringify(v)}`,
        )
      }
      for (const dob of AGE_LIMIT) {
        const body = base()
        body.passengers[0].date_of_birth = dob
        await refused(jsonReq('POST', url, host.apiKey, body), '/passengers/0/date_of_birth', `date_of_birth ${dob}`)
      }
    })
  })
}
