/**
 * The two hosts of the parity suite, wired identically (same clock start, counting ids, memory store,
 * sandbox airline, the sandbox seller with the sandbox's fixed API key, webhooks recorded instead of
 * sent), each behind a `Transport`:
 * - server: the Fastify app (server/app.ts) through `app.inject`;
 * - sandbox: the MSW handlers of mock-server through `setupServer` from msw/node and the global `fetch`.
 *
 * A scenario is written once against `Host` and run on each; every response is recorded, normalised, in a
 * transcript, and the two transcripts must be deep-equal. Normalisation is deliberately narrow:
 * - `x-request-id` and the body's `request_id`: fresh random UUIDs on both hosts → `<rid>` (an id the
 *   client sent is kept, and compared);
 * - JWTs keep their header and claims (kid, iat, exp, jti and sub are identical: same clock, counting
 *   ids) and only the signature becomes `<sig>`: each host has its own ES256 key, and ECDSA signatures
 *   are randomised anyway;
 * - the JWKS key material (`x`, `y`) for the same reason.
 * Ids, timestamps, refresh tokens, webhook secrets and state hashes are compared as they are.
 */
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import type { SetupServer } from 'msw/node'
import { buildApp } from '../../server/app.ts'
import { createCore, type Core } from '../../core/core.ts'
import { MemoryStore } from '../../core/adapters/memory-store.ts'
import { createSandboxSupplier } from '../../core/adapters/sandbox-airline/adapter.ts'
import type { WebhookSender } from '../../core/ports/webhook-sender.ts'
import { createSandbox, SANDBOX_API_KEY } from '../../mock-server/sandbox.ts'
import type { Sandbox } from '../../mock-server/types.ts'
import { testClock, testIds, type TestClock } from '../helpers/build.ts'

export const SANDBOX_ORIGIN = 'http://sandbox.test'

export interface Sent {
  headers?: Record<string, string>
  /** Sent as JSON with `content-type: application/json` unless the headers name another type. */
  json?: unknown
  /** Sent as these exact bytes (a string as UTF-8), with only the content type the headers give (none when they give none). */
  raw?: string | Uint8Array
  /** An event stream is answered: read this many events (comments count), then hang up. Default 3. */
  events?: number
}

export interface Received {
  status: number
  headers: Record<string, string>
  /** Parsed JSON when the response is JSON, else the text ('' for none). */
  body: any
}

export interface Transport {
  send(method: string, path: string, sent?: Sent): Promise<Received>
}

function encode(sent: Sent): { headers: Record<string, string>; payload: Uint8Array | undefined } {
  const headers = { ...sent.headers }
  if (sent.json !== undefined) {
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json'
    return { headers, payload: new TextEncoder().encode(JSON.stringify(sent.json)) }
  }
  return { headers, payload: typeof sent.raw === 'string' ? new TextEncoder().encode(sent.raw) : sent.raw }
}

function decode(status: number, headers: Record<string, string>, text: string): Received {
  const json = /^application\/(problem\+)?json/.test(headers['content-type'] ?? '') && text !== ''
  return { status, headers, body: json ? JSON.parse(text) : text }
}

const isEventStream = (headers: Record<string, string>) => /^text\/event-stream/.test(headers['content-type'] ?? '')

/** The first `n` events of a stream's body, as text, once they have come (the caller then hangs up). */
async function firstEvents(body: AsyncIterable<Uint8Array | string>, n: number): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  for await (const chunk of body) {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    const blocks = text.split('\n\n')
    if (blocks.length > n) return blocks.slice(0, n).join('\n\n') + '\n\n'
  }
  return text
}

/** Both transports see the same request target: what `fetch` would put on the wire for this path. */
const target = (path: string) => {
  const u = new URL(path, SANDBOX_ORIGIN)
  return `${u.pathname}${u.search}`
}

export function injectTransport(app: FastifyInstance): Transport {
  return {
    async send(method, path, sent = {}) {
      const { headers, payload } = encode(sent)
      const res = await app.inject({
        method: method as 'GET',
        url: target(path),
        headers,
        ...(payload !== undefined ? { payload: Buffer.from(payload) } : {}),
        payloadAsStream: true,
      })
      const h: Record<string, string> = {}
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v)
      const stream = res.stream()
      const text = isEventStream(h) ? await firstEvents(stream, sent.events ?? 3) : await firstEvents(stream, Infinity)
      stream.destroy()
      return decode(res.statusCode, h, text)
    },
  }
}

export function fetchTransport(origin = SANDBOX_ORIGIN): Transport {
  return {
    async send(method, path, sent = {}) {
      const { headers, payload } = encode(sent)
      // Bytes, not a string: fetch would add `text/plain` to a string body that names no type.
      const hangUp = new AbortController()
      const res = await fetch(`${origin}${target(path)}`, {
        method,
        headers,
        signal: hangUp.signal,
        ...(payload !== undefined ? { body: payload as Uint8Array<ArrayBuffer> } : {}),
      })
      const h: Record<string, string> = {}
      res.headers.forEach((v, k) => {
        h[k] = v
      })
      if (isEventStream(h) && res.body) {
        const reader = res.body.getReader()
        const chunks = {
          async *[Symbol.asyncIterator]() {
            for (;;) {
              const r = await reader.read()
              if (r.done) return
              yield r.value
            }
          },
        }
        const text = await firstEvents(chunks, sent.events ?? 3)
        // Not reader.cancel(): msw/node keeps a copy of the body, and a cancel waits for both to end.
        hangUp.abort()
        return decode(res.status, h, text)
      }
      return decode(res.status, h, await res.text())
    },
  }
}

export interface Recorded {
  target: string
  headers: Record<string, string>
  body: string
}

export interface Host {
  name: 'server' | 'sandbox'
  transport: Transport
  clock: TestClock
  core: Core
  apiKey: string
  /** Webhooks the host would have delivered. */
  deliveries(): Recorded[]
  /** Runs the due jobs (the server's worker; the sandbox's timer, which is off here). */
  drain(): Promise<number>
  close(): Promise<void>
}

export async function serverHost(): Promise<Host> {
  const store = new MemoryStore()
  const clock = testClock()
  const recorded: Recorded[] = []
  const webhooks: WebhookSender = {
    async send(t, body, headers) {
      recorded.push({ target: t, headers: { ...headers }, body })
      return 200
    },
  }
  const core = createCore({ store, suppliers: [createSandboxSupplier()], clock, ids: testIds('counting'), webhooks })
  // The sandbox's start-up (mock-server/sandbox.ts): the signing key, then its seller with the fixed key.
  await core.ensureSigningKey()
  await core.createSeller({ name: 'Sandbox', origins: [], sandbox: true, apiKey: SANDBOX_API_KEY })
  const app = await buildApp({ core, store, rateLimit: { max: 1_000_000, timeWindow: 60_000 } })
  await app.ready()
  return {
    name: 'server',
    transport: injectTransport(app),
    clock,
    core,
    apiKey: SANDBOX_API_KEY,
    deliveries: () => recorded,
    drain: () => core.drainJobs(),
    close: () => app.close(),
  }
}

export async function sandboxHost(msw: SetupServer): Promise<Host & { sandbox: Sandbox }> {
  const clock = testClock()
  const sandbox = await createSandbox({ baseUrl: SANDBOX_ORIGIN, clock, ids: testIds('counting'), autoRunJobs: false })
  msw.resetHandlers(...sandbox.handlers)
  return {
    name: 'sandbox',
    transport: fetchTransport(),
    clock,
    core: sandbox.core,
    apiKey: sandbox.apiKey,
    sandbox,
    deliveries: () => sandbox.deliveries.map(({ target: t, headers, body }) => ({ target: t, headers, body })),
    drain: () => sandbox.runJobs(),
    close: async () => {
      sandbox.dispose()
      msw.resetHandlers()
    },
  }
}

// ---------------------------------------------------------------- transcripts

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const JWT = /^(eyJ[\w-]*\.eyJ[\w-]*)\.[\w-]+$/

/** The response headers that are part of the contract; the rest (date, content-length, connection) are transport detail. */
export const COMPARED_HEADERS = [
  'content-type',
  'x-request-id',
  'idempotent-replayed',
  'retry-after',
  'allow',
  'etag',
  'cache-control',
] as const

export interface Entry {
  step: string
  request: string
  status: number
  headers: Record<string, string>
  body: unknown
}

export function normalise(res: Received, opts: { keys?: boolean } = {}): Omit<Entry, 'step' | 'request'> {
  const rid = res.headers['x-request-id']
  const generated = rid !== undefined && UUID.test(rid)
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') {
      if (generated && v === rid) return '<rid>'
      const jwt = JWT.exec(v)
      if (jwt) return `${jwt[1]}.<sig>`
      if (opts.keys && (key === 'x' || key === 'y')) return `<${key}>`
      return v
    }
    if (Array.isArray(v)) return v.map((x) => walk(x))
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
    return v
  }
  const headers: Record<string, string> = {}
  for (const h of COMPARED_HEADERS) {
    const value = res.headers[h]
    if (value !== undefined) headers[h] = h === 'x-request-id' && generated ? '<rid>' : value
  }
  return { status: res.status, headers, body: walk(res.body) }
}

export interface Expect {
  status: number
  code?: string
}

/** What a scenario sees: one host, with every exchange recorded for the comparison. */
export class Run {
  readonly transcript: Entry[] = []
  constructor(readonly host: Host) {}

  get clock() {
    return this.host.clock
  }

  /**
   * Sends a request and records the normalised response. `expect` guards the scenario itself (that it
   * reaches the state it claims to test); a failure names the host.
   */
  async send(
    step: string,
    method: string,
    path: string,
    sent: Sent = {},
    expect?: Expect | number,
    opts: { keys?: boolean } = {},
  ): Promise<Received> {
    const res = await this.host.transport.send(method, path, sent)
    this.transcript.push({ step, request: `${method} ${path}`, ...normalise(res, opts) })
    const e = typeof expect === 'number' ? { status: expect } : expect
    if (e) {
      assert.equal(
        res.status,
        e.status,
        `[${this.host.name}] ${step}: expected ${e.status}${e.code ? ` ${e.code}` : ''}, got ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`,
      )
      if (e.code) assert.equal(res.body?.code, e.code, `[${this.host.name}] ${step}: ${JSON.stringify(res.body)}`)
      if (e.status >= 400 && method !== 'HEAD') {
        // Every problem names the request id its header carries.
        assert.equal(res.body?.request_id, res.headers['x-request-id'], `[${this.host.name}] ${step}: request_id`)
      }
    }
    return res
  }

  /** Records something that is not an HTTP exchange but must also be the same (e.g. the jobs run, the webhooks). */
  note(step: string, value: unknown) {
    this.transcript.push({
      step,
      request: '-',
      status: 0,
      headers: {},
      body: normalise({ status: 0, headers: {}, body: value }).body,
    })
  }

  async drain(step = 'jobs') {
    this.note(step, { jobs_run: await this.host.drain() })
  }
}

/** The first difference between two transcripts, or nothing. */
export function assertSameTranscript(server: Entry[], sandbox: Entry[]) {
  const n = Math.min(server.length, sandbox.length)
  for (let i = 0; i < n; i++) {
    assert.deepEqual(
      sandbox[i],
      server[i],
      `step ${i + 1} "${server[i]!.step}" (${server[i]!.request}) differs: sandbox (actual) vs server (expected)`,
    )
  }
  assert.equal(sandbox.length, server.length, 'both hosts ran the same number of steps')
}
