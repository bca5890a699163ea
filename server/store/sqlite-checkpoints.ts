/**
 * The SQLite WAL's checkpoints, on a thread of their own.
 *
 * A checkpoint copies the pages the WAL holds back into the database file and syncs both (two fsyncs). Left
 * to SQLite, the connection whose commit takes the WAL past 1,000 pages runs it inside that commit, on the
 * event loop: every request of the process waits for those fsyncs, 5–10 ms each on this machine's disk,
 * and a trip creation (14 pages of WAL) meets one every ~70 creations. Here a worker thread with a
 * connection of its own runs a PASSIVE checkpoint every `everyMs` while pages come in: PASSIVE takes no lock
 * a writer needs, so the event loop goes on committing while it runs. Small and frequent: at 100 ms and
 * more, each copied more at once and the slowest requests waited longer (p99 up to 46 ms, from 29); at
 * 10 ms, POST trip 1,339 → 1,619 req/s and p99 24 → 22 ms in the same run (docs/performance.md). A
 * RESTART checkpoint, which waits for the writers, made p99 three times worse when it was tried.
 *
 * The writing connection keeps SQLite's own checkpoint as a backstop at BACKSTOP_PAGES, which a running
 * thread keeps it from reaching; if the thread fails, the connection is set back to SQLite's default, so
 * the WAL is checkpointed as it was before, never left to grow.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'

/** SQLite's default wal_autocheckpoint: what the writing connection does when no thread checkpoints. */
export const INLINE_CHECKPOINT_PAGES = 1000
/** The writing connection's own checkpoint while the thread runs: only if the thread falls this far behind. */
export const BACKSTOP_PAGES = 10_000

/** One checkpoint's figures, as `PRAGMA wal_checkpoint` gives them: pages in the WAL and pages copied back. */
export interface CheckpointResult {
  busy: number
  log: number
  checkpointed: number
}

export interface CheckpointOptions {
  /** How soon the thread checkpoints again after one that found new pages; ten times that after one that did not. */
  everyMs?: number
  /** Told each checkpoint that found new pages to copy (tests, metrics). */
  onCheckpoint?: (r: CheckpointResult) => void
}

// The thread's code is JavaScript given as a string (Worker `eval`): a .ts entry would need tsx's loader,
// which Node 20 does not run in workers, and this needs nothing but the driver the main thread resolved.
// Its nice value is raised on Linux, where it is the calling thread's alone (elsewhere it is the whole
// process's), so a checkpoint yields a shared core to the event loop rather than the other way round.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
if (process.platform === 'linux') require('node:os').setPriority(19)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('busy_timeout = 5000')
db.pragma('synchronous = NORMAL')
let timer, last = -1
const checkpoint = () => {
  const [r] = db.pragma('wal_checkpoint(PASSIVE)')
  const fresh = r.log !== last
  last = r.log
  if (workerData.report && fresh && r.log > 0) parentPort.postMessage(r)
  timer = setTimeout(checkpoint, fresh ? workerData.everyMs : workerData.everyMs * 10)
}
timer = setTimeout(checkpoint, workerData.everyMs)
parentPort.once('message', () => { clearTimeout(timer); db.close(); parentPort.close() })
`

export class CheckpointThread {
  readonly #worker: Worker
  readonly #exited: Promise<void>

  /** Starts checkpointing `path`, the file `db` (WAL mode) writes. */
  constructor(db: Database.Database, path: string, opts: CheckpointOptions = {}) {
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`)
    this.#worker = new Worker(THREAD, {
      eval: true,
      workerData: {
        path,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        everyMs: opts.everyMs ?? 10,
        report: opts.onCheckpoint !== undefined,
      },
    })
    // A store nobody closed must not keep the process alive for its checkpoints.
    this.#worker.unref()
    this.#worker.on('message', (r: CheckpointResult) => opts.onCheckpoint?.(r))
    // Failed (the file gone, the driver refusing): the writing connection checkpoints itself again, and the
    // process says so on stderr (the store has no logger of its own).
    const inline = () => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`)
    }
    this.#worker.on('error', (err) => {
      inline()
      process.emitWarning(
        `SQLite checkpoints of ${path} are back in the writing connection: their thread failed (${err.message})`,
      )
    })
    this.#exited = new Promise((resolve) =>
      this.#worker.once('exit', () => {
        inline()
        resolve()
      }),
    )
  }

  /** Stops after the checkpoint under way, if any; its connection is closed when this resolves. */
  async stop(): Promise<void> {
    this.#worker.ref() // a close awaits the thread's exit: the event loop must wait with it
    this.#worker.postMessage('stop')
    await this.#exited
  }
}
