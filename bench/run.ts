/** `npm run bench [-- api|size|scale]`: runs the benchmarks and prints their figures. */
export {}

const which = process.argv.slice(2)
const want = (name: string) => which.length === 0 || which.includes(name)
if (want('api')) await (await import('./api-load.ts')).apiLoad()
if (want('size')) await import('./bundle-size.ts')
// Only when named: it loads up to a million trips per store (minutes, and ~10 GiB of disk each).
if (which.includes('scale')) await (await import('./scale.ts')).scale()
