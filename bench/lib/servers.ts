/** Starts a benchmark server (bench/servers/*.ts) in a child process and waits for its URL. */
import { fork, type ChildProcess } from 'node:child_process'
import { openSync } from 'node:fs'
import { join } from 'node:path'

export interface Served {
  url: string
  apiKey?: string
  child: ChildProcess
  stop(): Promise<void>
}

export interface ServeOptions {
  env?: Record<string, string | undefined>
  /** Extra node flags for the child, e.g. `--cpu-prof --cpu-prof-dir=...`. */
  nodeFlags?: string[]
}

export async function serve(name: 'bare' | 'service' | 'floor', opts: ServeOptions = {}): Promise<Served> {
  const devNull = openSync('/dev/null', 'w')
  const child = fork(join(import.meta.dirname, '..', 'servers', `${name}.ts`), [], {
    execArgv: ['--import', 'tsx', ...(opts.nodeFlags ?? [])],
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', devNull, 'inherit', 'ipc'],
  })
  const ready = await new Promise<{ url: string; apiKey?: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; apiKey?: string }))
    child.once('exit', (code) => reject(new Error(`bench server ${name} exited with ${code} before it was ready`)))
  })
  return {
    ...ready,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.disconnect()
        // A server that does not close within 10 s is killed: a benchmark must always end.
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
      }),
  }
}
