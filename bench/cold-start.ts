/**
 * `npm run bench -- cold`: time from spawning the process to the first 200 of /readyz, and the peak resident
 * memory (VmHWM) by then, for `npm start`'s entry compiled (dist/node, what it runs) and the same sources
 * under tsx (what it ran before), beside a bare Fastify 5 hello-world started the same way in the same round.
 * Each start is on a fresh SQLite file (so it migrates and makes a signing key, as a first start does).
 * Needs `npm run build:server`.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median, spread } from './lib/stats.ts'

const root = join(import.meta.dirname, '..')
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)

interface Start {
  label: string
  args: string[]
  ready: string
}

const STARTS: Start[] = [
  // Plain JavaScript, as the compiled entry: what starting Node and Fastify costs before any of ours.
  {
    label: 'bare Fastify hello-world',
    ready: '/',
    args: [
      '--input-type=module',
      '-e',
      "import Fastify from 'fastify'; const app = Fastify(); app.get('/', async () => ({ hello: 'world' })); console.log(await app.listen({ port: 0, host: '127.0.0.1' }))",
    ],
  },
  { label: 'npm start (compiled, dist/node)', args: ['dist/node/examples/seller-checkout/main.js'], ready: '/readyz' },
  {
    label: 'the same under tsx (before)',
    args: ['--import', 'tsx', 'examples/seller-checkout/main.ts'],
    ready: '/readyz',
  },
]

/** The port a child printed (`http://127.0.0.1:PORT`). */
const portIn = (text: string) => /http:\/\/127\.0\.0\.1:(\d+)/.exec(text)?.[1]

async function once(s: Start): Promise<{ ms: number; mib: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cold-'))
  const t0 = performance.now()
  const child = spawn(process.execPath, s.args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`,
    },
  })
  let out = ''
  child.stdout.on('data', (c) => {
    out += String(c)
  })
  child.stderr.on('data', (c) => {
    out += String(c)
  })
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${s.label} exited:\n${out}`)
      const port = portIn(out)
      if (port) {
        const ok = await fetch(`http://127.0.0.1:${port}${s.ready}`).then(
          (r) => r.ok,
          () => false,
        )
        if (ok) break
      }
      await new Promise((r) => setTimeout(r, 5))
    }
    const ms = performance.now() - t0
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]
    return { ms, mib: Number(hwm) / 1024 }
  } finally {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function coldStart(): Promise<void> {
  if (!existsSync(join(root, 'dist/node/examples/seller-checkout/main.js')))
    throw new Error('run `npm run build:server` first')
  const results = new Map<string, { ms: number[]; mib: number[] }>()
  for (let round = 1; round <= rounds; round++) {
    for (const s of STARTS) {
      const r = await once(s)
      const acc = results.get(s.label) ?? { ms: [], mib: [] }
      acc.ms.push(r.ms)
      acc.mib.push(r.mib)
      results.set(s.label, acc)
      console.log(`round ${round}: ${s.label} ${r.ms.toFixed(0)} ms, ${r.mib.toFixed(0)} MiB`)
    }
  }
  const bare = median(results.get(STARTS[0]!.label)!.ms)
  console.log(
    `\nCold start: spawn to the first 200 of /readyz, fresh SQLite file, ${rounds} rounds (median, lowest–highest)`,
  )
  console.table(
    STARTS.map((s) => {
      const r = results.get(s.label)!
      return {
        start: s.label,
        ms: spread(r.ms, 0, ' ms'),
        'peak MiB': spread(r.mib, 0, ' MiB'),
        'vs bare (median)': `${(median(r.ms) / bare).toFixed(2)}×`,
      }
    }),
  )
}
