/**
 * The least a PUT basket and a POST trip can do (bench/floor.ts): Fastify 5 routes with the service's logging
 * (its one JSON line a request, server/app.ts, into stdout, which the parent sends to /dev/null), writing to a
 * copy of the service's own database (FLOOR_DB: its tables, indexes, foreign keys and rows) opened as the
 * service opens it (SqliteStore: its pragmas, and its WAL checkpointed on a thread of its own).
 * What they write and answer is a real request's, taken from the service (FLOOR_SAMPLES, see `Samples`).
 *
 * - PUT /v2.2/trip/:id/basket parses the body, makes the next trip document (the sample one with the body as
 *   its basket), writes its JSON with an UPDATE conditional on the version (a turn's writes in one IMMEDIATE
 *   transaction, as the service's trip cache does) and answers a basket's JSON.
 * - POST /v2.2/trip parses the body, makes new ids and a refresh token (kept as its SHA-256), writes the three
 *   rows a creation writes (the trip's document, its search's offers, the refresh token) in one IMMEDIATE
 *   transaction, signs an ES256 access token with jose and the same claims, and answers the creation's JSON.
 *
 * Left out, on purpose: everything the service does besides, which is what the bench weighs. Authentication,
 * rate limit, CORS, the body's validation, the trip's rules and prices, the supplier's search and its
 * compaction, the basket rules, the state hash, the views, metrics, compression negotiation, the trip cache.
 */
import Fastify from 'fastify'
import { SignJWT, generateKeyPair } from 'jose'
import { hash, randomBytes, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { OneLineLog } from '../../server/app.ts'
import { SqliteStore } from '../../server/store/sqlite.ts'

/** What the floor writes and answers, taken from the service (bench/floor.ts). */
export interface Samples {
  /** PUT basket: the trip document as the store kept it after a real PUT, and that PUT's answer. */
  put: { doc: Record<string, unknown>; answer: Record<string, unknown> }
  /** POST trip: the trip's document and its search's offers as the store kept them, and the creation's answer. */
  post: { doc: Record<string, unknown>; offers: unknown; sellerId: string; answer: Record<string, unknown> }
}

const samples = JSON.parse(readFileSync(process.env.FLOOR_SAMPLES!, 'utf8')) as Samples
// As openStore opens a file (server/store/index.ts); only the connection is used, the floor's SQL is its own.
const store = new SqliteStore(process.env.FLOOR_DB!, { checkpointThread: {} })
const { db } = store

const versionOf = db.prepare('SELECT version FROM trips WHERE trip_id = ?').pluck()
const update = db.prepare(
  'UPDATE trips SET doc = ?, updated_at = ?, version = version + 1 WHERE trip_id = ? AND version = ?',
)
const versions = new Map<string, number>()

/** The writes of this turn, committed together when it ends (as TripCache does). */
let turn: Array<{ id: string; json: string; at: string; done: (ok: boolean) => void }> | null = null
const write = (id: string, json: string, at: string) =>
  new Promise<boolean>((done) => {
    if (!turn) {
      turn = []
      setImmediate(() => {
        const writes = turn!
        turn = null
        const ok = db
          .transaction(() =>
            writes.map((w) => {
              const v = versions.get(w.id)!
              const changed = update.run(w.json, w.at, w.id, v).changes === 1
              if (changed) versions.set(w.id, v + 1)
              return changed
            }),
          )
          .immediate()
        writes.forEach((w, i) => w.done(ok[i]!))
      })
    }
    turn.push({ id, json, at, done })
  })

const insertTrip = db.prepare(
  'INSERT INTO trips (trip_id, seller_id, version, updated_at, doc, search_id, open, created_at) VALUES (?, ?, 1, ?, ?, ?, 1, ?)',
)
const insertSearch =
  db.prepare(`INSERT INTO searches (search_id, trip_id, status, created_at, offers) VALUES (?, ?, 'success', ?, ?)
  ON CONFLICT (search_id) DO UPDATE SET status = excluded.status, offers = excluded.offers WHERE searches.status = 'in_progress'`)
const insertRefreshToken =
  db.prepare(`INSERT INTO refresh_tokens (token_hash, family_id, trip_id, seller_id, expires_at, used_at, revoked_at)
  VALUES (?, ?, ?, ?, ?, NULL, NULL)`)
const create = db.transaction(
  (trip: {
    id: string
    searchId: string
    at: string
    doc: string
    offers: string
    tokenHash: string
    family: string
    expires: string
  }) => {
    insertTrip.run(trip.id, samples.post.sellerId, trip.at, trip.doc, trip.searchId, trip.at)
    insertSearch.run(trip.searchId, trip.id, trip.at, trip.offers)
    insertRefreshToken.run(trip.tokenHash, trip.family, trip.id, samples.post.sellerId, trip.expires)
  },
)
const { privateKey } = await generateKeyPair('ES256')
const kid = randomUUID()

const app = Fastify({ logger: { level: 'info' }, logController: new OneLineLog({ requestIdLogLabel: 'request_id' }) })
app.put<{ Params: { id: string }; Body: unknown[] }>('/v2.2/trip/:id/basket', async (req, reply) => {
  const id = req.params.id
  if (!versions.has(id)) versions.set(id, versionOf.get(id) as number)
  const at = new Date().toISOString()
  const next = { ...samples.put.doc, trip_id: id, basket: req.body, updated_at: at }
  if (!(await write(id, JSON.stringify(next), at))) return reply.code(409).send({ title: 'conflict' })
  return samples.put.answer
})
app.post('/v2.2/trip', async (_req, reply) => {
  const id = randomUUID()
  const searchId = randomUUID()
  const family = randomUUID()
  const at = new Date().toISOString()
  const refresh = `rt_${randomBytes(32).toString('base64url')}`
  const now = Math.floor(Date.now() / 1000)
  // Lifetimes as the service's defaults (core/application/config.ts): refresh 45 min, access 30 min.
  create.immediate({
    id,
    searchId,
    at,
    family,
    doc: JSON.stringify({ ...samples.post.doc, trip_id: id, search_id: searchId, created_at: at, updated_at: at }),
    offers: JSON.stringify(samples.post.offers),
    tokenHash: hash('sha256', refresh, 'hex'),
    expires: new Date(Date.now() + 45 * 60_000).toISOString(),
  })
  const token = await new SignJWT({ token_use: 'trip_access', sid: samples.post.sellerId, fam: family })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
    .setIssuer('http://127.0.0.1')
    .setIssuedAt(now)
    .setExpirationTime(now + 30 * 60)
    .setJti(randomUUID())
    .setSubject(id)
    .sign(privateKey)
  return reply.code(201).send({
    ...samples.post.answer,
    trip_id: id,
    search_id: searchId,
    trip_access_token: token,
    refresh_token: refresh,
  })
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.send?.({ ready: true, url })
process.on('disconnect', () => {
  void app
    .close()
    .then(() => store.close())
    .then(() => process.exit(0))
})
