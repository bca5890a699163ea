/**
 * Starts an entry point as a real process on a free port, for tests of the entry points and the documentation:
 * by default what `npm start` runs (the service with the demo checkout), from source under tsx; the
 * end-to-end suites, which run after `npm run build`, start the compiled JavaScript `npm start` runs.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { patience } from './patience.ts'
import type { Built } from './build.ts'

export const root = join(import.meta.dirname, '..', '..')

export interface RunningServer {
  base: string
  port: number
  /** Everything the process printed so far. */
  output(): string
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
  /** Kills the process at once (SIGKILL: no shutdown, as a crash or the kernel's OOM killer), and resolves when it is gone. */
  kill(): Promise<void>
}

export interface StartOptions {
  /** `demo` (default): `npm start`'s entry; `service`: the service alone (`npm run start:service`). */
  entry?: 'demo' | 'service'
  /** Run the compiled JavaScript in dist/node (after `npm run build`) instead of the sources under tsx. */
  compiled?: boolean
}

const ENTRIES = { demo: 'examples/seller-checkout/main', service: 'server/main' } as const

export async function startServer(env: Record<string, string>, opts: StartOptions = {}): Promise<RunningServer> {
  const entry = ENTRIES[opts.entry ?? 'demo']
  const args = opts.compiled ? ['--enable-source-maps', `dist/node/${entry}.js`] : ['--import', 'tsx', `${entry}.ts`]
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
  })
  let out = ''
  child.stdout.on('data', (c) => {
    out += String(c)
  })
  child.stderr.on('data', (c) => {
    out += String(c)
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const gone = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const ready = /API\s+http:\/\/127\.0\.0\.1:(\d+)\/v2\.2/
  const deadline = Date.now() + patience(30_000)
  while (!ready.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL')
      assert.fail(`server did not start:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const port = Number(ready.exec(out)![1])
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      return exited
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      return gone
    },
  }
}

/** What the flows of test/helpers/flows.ts need of a `Built`, over HTTP to a running server, as `apiKey`'s seller. */
export function overHttp(base: string, apiKey: string): Built {
  const inject = async (o: { method: string; url: string; headers?: Record<string, string>; payload?: unknown }) => {
    const res = await fetch(base + o.url, {
      method: o.method,
      headers: { ...(o.payload === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers },
      ...(o.payload === undefined ? {} : { body: JSON.stringify(o.payload) }),
    })
    const body = await res.text()
    return { statusCode: res.status, body, headers: Object.fromEntries(res.headers), json: () => JSON.parse(body) }
  }
  return { app: { inject }, apiKey, clock: { now: () => new Date() } } as unknown as Built
}
