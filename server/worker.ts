/**
 * The job worker: runs the core's durable jobs in this process, in two lanes: basket checks, fulfillment
 * orders, cancellations and webhook deliveries one at a time; remote supplier searches in a lane of their
 * own, `searchConcurrency` at a time, no seller holding more than half of it (docs/decisions.md "A supplier
 * is an untrusted upstream"). A search a traveller's browser starts, however slow its supplier, never
 * queues another seller's check, order or webhook. `npm start` runs one worker beside the API unless
 * WORKER=off; `npm run worker` (worker-main.ts) runs one alone. Any number may run against one database: a
 * job is claimed under a lease, held while it runs, and a worker that dies mid-job leaves it to be claimed
 * again when the lease lapses.
 */
import { OTHER_KINDS, SEARCH_KINDS, type Core, type JobKind, type JobReport } from '../core/core.ts'

/** The part of a pino / Fastify logger the worker uses. */
export interface WorkerLog {
  debug(obj: object, msg: string): void
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface WorkerOptions {
  core: Core
  log: WorkerLog
  /** Wait before polling again when no job was due (default 250 ms). */
  pollMs?: number
  /**
   * Longest wait between polls: an empty queue is polled ever less often, doubling from `pollMs` up to this
   * (default 1000 ms); a failure of the job runner itself (the database unreachable) waits this long.
   */
  idleMs?: number
  /** How often to run the retention job (default 10 minutes; 0 turns it off). The first run is at start. */
  retentionEveryMs?: number
  /** Supplier searches run at once (SUPPLIER_SEARCH_CONCURRENCY, default 4); one seller holds at most half of them. */
  searchConcurrency?: number
}

export interface Worker {
  /** Stops polling, lets the jobs in hand finish, and resolves when every lane has ended. Safe to call twice. */
  stop(): Promise<void>
}

export function startWorker(opts: WorkerOptions): Worker {
  const { core, log } = opts
  const pollMs = opts.pollMs ?? 250
  const idleMs = Math.max(pollMs, opts.idleMs ?? 1000)

  let stopping = false

  // Every sleeping lane is woken at once by stop().
  const wakers = new Set<() => void>()
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      wakers.add(done)
    })

  /** One lane's loop: claims jobs of `kinds` one at a time until stopped, polling less often while none is due. */
  const lane = (kinds: JobKind[], claim: { perLane?: number } = {}) =>
    (async () => {
      let wait = pollMs
      while (!stopping) {
        let report: JobReport | null
        try {
          report = await core.processNextJob(kinds, claim)
        } catch (err) {
          // processNextJob records a job's own failure in the store; what reaches here is the store failing.
          log.warn({ err: err instanceof Error ? err.message : String(err) }, 'the job runner failed; retrying')
          if (!stopping) await sleep(idleMs)
          continue
        }
        if (report) {
          logReport(log, report)
          wait = pollMs
          continue
        }
        if (!stopping) await sleep(wait)
        wait = Math.min(idleMs, wait * 2)
      }
    })()
  const searches = Math.max(1, opts.searchConcurrency ?? 4)
  const perSeller = Math.max(1, Math.ceil(searches / 2))
  const loops = [
    lane(OTHER_KINDS),
    ...Array.from({ length: searches }, () => lane(SEARCH_KINDS, { perLane: perSeller })),
  ]

  // Retention beside the jobs: several workers may purge at once; each batch skips rows another is deleting.
  const retentionEveryMs = opts.retentionEveryMs ?? 10 * 60_000
  let purging: Promise<void> | null = null
  const purge = () => {
    purging ??= core
      .purgeExpired()
      .then(
        (counts) => {
          const total = Object.values(counts).reduce((a, b) => a + b, 0)
          if (total > 0) log.info({ ...counts }, 'retention: expired rows deleted')
        },
        (err: unknown) =>
          log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'retention run failed; it runs again later',
          ),
      )
      .finally(() => {
        purging = null
      })
  }
  const retention = retentionEveryMs > 0 ? setInterval(purge, retentionEveryMs) : undefined
  retention?.unref()
  if (retention) purge()

  log.info(
    {
      poll_ms: pollMs,
      idle_ms: idleMs,
      retention_every_ms: retentionEveryMs,
      search_concurrency: searches,
      searches_per_seller: perSeller,
    },
    'job worker started',
  )
  let stopped: Promise<void> | null = null
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true
        clearInterval(retention)
        for (const wake of [...wakers]) wake()
        await Promise.all(loops)
        await purging
        log.info({}, 'job worker stopped')
      })()
      return stopped
    },
  }
}

const MESSAGES: Record<JobReport['outcome'], string> = {
  done: 'job done',
  waiting: 'job waiting for the supplier',
  retry: 'job failed; will retry',
  dead: 'job given up (dead)',
  lease_lost: 'job finished after its lease lapsed; another worker owns it now',
}

/**
 * Every supplier call of the core as one log line (info; warn when it failed) with its seller, trip and
 * order: method, path without its query, status, time, the supplier's request id, outcome. No token or
 * body is ever in a report (core/application/supplier-calls.ts). Returns the way to stop.
 */
export function logSupplierCalls(core: Pick<Core, 'observe'>, log: WorkerLog): () => void {
  return core.observe({
    supplierCalled: (r) => (r.outcome === 'ok' ? log.info : log.warn).call(log, { ...r }, 'supplier call'),
  })
}

/**
 * Every outcome one line, with the job's seller, trip and order or subscription (JobReport.about): routine ones
 * at info, the ones an operator should act on at warn.
 */
export function logReport(log: WorkerLog, r: JobReport) {
  const level = r.outcome === 'done' || r.outcome === 'waiting' ? 'info' : 'warn'
  // What the run was about (whose job, a webhook's delivery, event, status, duration) flat beside the job's
  // id, so a log query filters on them.
  const { about, ...rest } = r
  log[level]({ ...rest, ...about }, MESSAGES[r.outcome])
}
