/**
 * The least a PUT basket can do (bench/floor.ts): a Fastify 5 route with the service's logging (one JSON
 * line a request into stdout, which the parent sends to /dev/null) that parses the JSON body, makes the next
 * trip document (the kept one with the body as its basket), writes its JSON to SQLite as the service does
 * (the same pragmas; an UPDATE conditional on the version; the writes of a turn of the event loop in one
 * IMMEDIATE transaction) and answers a basket's JSON. The document and the answer are a real PUT's, taken
 * from the service (FLOOR_DOC, FLOOR_ANSWER: files of JSON). Its checkpoints stay SQLite's own, in the
 * commit, where the service has moved them to a thread: if anything the floor is measured a little slow.
 *
 * Left out, on purpose: everything the service does besides, which is what the bench weighs. Authentication,
 * rate limit, CORS, the body's validation, the basket rules and their pricing, the state hash, the basket's
 * view, metrics, compression negotiation, the trip cache.
 */
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import Database from 'better-sqlite3'
import { readFileSync } from 'node:fs'

const doc = JSON.parse(readFileSync(process.env.FLOOR_DOC!, 'utf8')) as Record<string, unknown>
const answer = JSON.parse(readFileSync(process.env.FLOOR_ANSWER!, 'utf8')) as Record<string, unknown>
const db = new Database(process.env.FLOOR_DB!)
for (const p of ['journal_mode = WAL', 'synchronous = NORMAL', 'cache_size = -65536', 'mmap_size = 268435456']) db.pragma(p)
db.exec('CREATE TABLE IF NOT EXISTS trips (trip_id TEXT PRIMARY KEY, version INTEGER NOT NULL, doc TEXT NOT NULL)')
const update = db.prepare('UPDATE trips SET doc = ?, version = version + 1 WHERE trip_id = ? AND version = ?')
const versions = new Map<string, number>()

/** The writes of this turn, committed together when it ends (as TripCache does). */
let turn: Array<{ id: string; json: string; done: (ok: boolean) => void }> | null = null
const write = (id: string, json: string) => new Promise<boolean>((done) => {
  if (!turn) {
    turn = []
    setImmediate(() => {
      const writes = turn!
      turn = null
      const ok = db.transaction(() => writes.map((w) => {
        const v = versions.get(w.id)!
        const changed = update.run(w.json, w.id, v).changes === 1
        if (changed) versions.set(w.id, v + 1)
        return changed
      })).immediate()
      writes.forEach((w, i) => w.done(ok[i]!))
    })
  }
  turn.push({ id, json, done })
})

/** One line a request when it completes, as the service logs (server/app.ts). */
class OneLine extends LogController {
  override incomingRequest() {}
  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    reply.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request completed')
  }
}

const app = Fastify({ logger: { level: 'info' }, logController: new OneLine() })
app.put<{ Params: { id: string }; Body: unknown[] }>('/v2.2/trip/:id/basket', async (req, reply) => {
  const id = req.params.id
  if (!versions.has(id)) {
    db.prepare('INSERT OR REPLACE INTO trips VALUES (?, 1, ?)').run(id, JSON.stringify(doc))
    versions.set(id, 1)
  }
  const next = { ...doc, basket: req.body, updated_at: new Date().toISOString() }
  if (!(await write(id, JSON.stringify(next)))) return reply.code(409).send({ title: 'conflict' })
  return answer
})
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.send?.({ ready: true, url })
process.on('disconnect', () => { void app.close().then(() => { db.close(); process.exit(0) }) })
