/**
 * `npm run worker`: the job worker alone, for deployments that run the API with WORKER=off and scale the
 * two apart. Same configuration as `npm start` (DATABASE_URL, LOG_LEVEL, token lifetimes); with METRICS_PORT
 * it also answers GET /metrics (its own job runs and store errors, which no API instance sees), /healthz and
 * /readyz on that port. On SIGINT or SIGTERM it finishes the job in hand, closes the database and exits 0.
 */
import { loadConfigOrExit } from './config.ts'
import { startCore } from './bootstrap.ts'
import pino from 'pino'
import { logSupplierCalls, startWorker } from './worker.ts'
import { buildWorkerApp } from './app.ts'
import { Metrics } from './metrics.ts'

async function main() {
  const config = loadConfigOrExit()
  if (config.databaseUrl === 'memory:' || config.databaseUrl === 'sqlite::memory:') {
    console.error(
      "DATABASE_URL names an in-process database: a separate worker would never see the API's jobs. Use sqlite:PATH or postgres://…, or run the worker inside npm start.",
    )
    process.exit(2)
  }

  // The same logger and JSON lines as the API process (Fastify logs through pino).
  const log = pino({ level: config.logLevel, base: { pid: process.pid, component: 'worker' } })
  // Made before the core, so the store the core is built on counts its errors for GET /metrics.
  const metrics = new Metrics()
  const { store, core } = await startCore(config, metrics)
  // Before the worker starts, so its first job runs are counted.
  let probes: Awaited<ReturnType<typeof buildWorkerApp>> | undefined
  if (config.metricsPort !== undefined) {
    probes = await buildWorkerApp({
      core,
      store,
      metrics,
      ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
      logger: { level: config.logLevel, base: { pid: process.pid, component: 'worker' } },
    })
    const url = await probes.listen({ port: config.metricsPort, host: config.host })
    log.info(
      { url: `${url}/metrics`, token: config.metricsToken ? 'required' : 'none' },
      'metrics and probes listening',
    )
  }
  logSupplierCalls(core, log)
  const worker = startWorker({ core, log, searchConcurrency: config.supplierSearchConcurrency })

  let stopping = false
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130) // a second Ctrl-C means "now"
    stopping = true
    log.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      log.warn({}, 'the job in hand took longer than 15 s to finish; exiting (its lease lets another worker redo it)')
      process.exit(1)
    }, 15_000)
    force.unref()
    try {
      await worker.stop()
      await probes?.close()
      await store.close()
      process.exit(0)
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : String(err) }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.on('SIGINT', (s) => {
    void stop(s)
  })
  process.on('SIGTERM', (s) => {
    void stop(s)
  })
}

main().catch((err) => {
  console.error('The worker could not start:', err instanceof Error ? err.message : err)
  process.exit(1)
})
