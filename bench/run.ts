/**
 * `npm run bench [-- api|storage|first|size|cold|profile|floor|scale|soak|supplier]`: runs the benchmarks and prints their figures
 * (docs/performance.md shows them and how they were made). With no names: api, storage, first, size and cold.
 */
export {}

const which = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const want = (name: string) => which.length === 0 || which.includes(name)
if (want('api')) await (await import('./api-load.ts')).apiLoad()
if (want('storage')) await (await import('./storage.ts')).storage()
// Needs `npm run build` (the page loads the built svc.min.js).
if (want('first')) await (await import('./first-control.ts')).firstControl()
if (want('size')) await import('./bundle-size.ts')
// Needs `npm run build:server` (it starts the compiled entry).
if (want('cold')) await (await import('./cold-start.ts')).coldStart()
// Only when named: `profile <scenario>` is a tool, and scale loads up to a million trips per store (minutes, ~10 GiB).
if (which.includes('profile'))
  await (await import('./profile.ts')).profile(which[which.indexOf('profile') + 1] ?? 'GET basket')
if (which.includes('scale')) await (await import('./scale.ts')).scale()
// Only when named: PUT basket and POST trip beside the least they could do (bench/floor.ts), where the profile says why.
if (which.includes('floor')) await (await import('./floor.ts')).floor()
// Only when named: what a misbehaving supplier costs (bench/supplier.ts; a minute or two: a slow fake Duffel, a 1 GB answer).
if (which.includes('supplier')) await (await import('./supplier.ts')).supplierBench()
// Only when named: minutes of steady load (`soak --rate=400 --seconds=300 --warmup=30`); exits 1 when its target is missed.
if (which.includes('soak') && !(await (await import('./soak.ts')).soak())) process.exitCode = 1
