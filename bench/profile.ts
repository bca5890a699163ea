/**
 * CPU profile of the service under one scenario of the API load benchmark: starts the service with
 * `node --cpu-prof`, drives the scenario, and prints where the main thread spent its time (self time by
 * function, and the share of time under our own modules). The .cpuprofile is kept for Chrome DevTools.
 *
 *   npm run bench -- profile "PUT basket"      DATABASE_URL=postgres://… to profile on PostgreSQL
 */
import autocannon from 'autocannon'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { SCENARIOS, seedTrips } from './api-load.ts'
import { serve } from './lib/servers.ts'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}

const root = join(import.meta.dirname, '..')

export async function profile(name: string) {
  const scenario = SCENARIOS.find((s) => s.name === name)
  if (!scenario)
    throw new Error(`no scenario ${JSON.stringify(name)}; one of ${SCENARIOS.map((s) => s.name).join(', ')}`)
  const dir = mkdtempSync(join(tmpdir(), 'svc-prof-'))
  const s = await serve('service', {
    env: { DATABASE_URL: process.env.DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}` },
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  })
  const trips = await seedTrips(s)
  const r = await autocannon({
    url: s.url,
    connections: 16,
    duration: Number(process.env.BENCH_SECONDS ?? 5),
    ...scenario.options(s, trips),
  })
  await s.stop()
  // One file per thread (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): tsx's loader worker writes one too; thread 0 is the main one.
  const file = readdirSync(dir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))!
  console.log(`${name}: ${Math.round(r.requests.average)} req/s under the profiler; profile ${join(dir, file)}\n`)
  summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile)
}

function summarise(p: Profile) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const self = new Map<number, number>()
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)))
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const idle = [...self]
    .filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName))
    .reduce((a, [, t]) => a + t, 0)
  const busy = total - idle
  const where = (n: Node) => {
    const url = n.callFrame.url.replace(/^file:\/\//, '')
    const file = url.startsWith(root)
      ? relative(root, url).replace(/^node_modules\//, '')
      : url.replace(/^node:/, 'node:')
    return `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`
  }
  const selfBy = new Map<string, number>()
  for (const [id, t] of self) {
    const n = byId.get(id)!
    if (['(idle)', '(program)'].includes(n.callFrame.functionName)) continue
    selfBy.set(where(n), (selfBy.get(where(n)) ?? 0) + t)
  }
  // Inclusive time of our own modules: a sample counts once for each distinct module of ours on its stack.
  const inclusive = new Map<string, number>()
  p.samples.forEach((id, i) => {
    const seen = new Set<string>()
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const url = byId.get(n)!.callFrame.url.replace(/^file:\/\//, '')
      if (url.startsWith(root) && !url.includes('node_modules')) seen.add(relative(root, url))
      else if (url.includes('node_modules/'))
        seen.add(
          url
            .split('node_modules/')
            .pop()!
            .split('/')
            .slice(0, url.includes('node_modules/@') ? 2 : 1)
            .join('/'),
        )
    }
    for (const m of seen) inclusive.set(m, (inclusive.get(m) ?? 0) + (p.timeDeltas[i] ?? 0))
  })
  const pct = (t: number) => `${((t / busy) * 100).toFixed(1).padStart(5)} %`
  console.log(`busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s\n\nself time (top 25)`)
  for (const [k, t] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${pct(t)}  ${k}`)
  console.log('\ninclusive time by module (top 25)')
  for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${pct(t)}  ${k}`)
}

if (import.meta.url === `file://${process.argv[1]}`) await profile(process.argv[2] ?? 'GET basket')
