/**
 * `npm run example:sandbox`: builds the SDK when it is stale (build-if-stale ran before this), then says
 * how to open examples/sandbox: from disk (a file:// URL), or from any static server. With `--serve` it
 * serves the repository itself (PORT, default 8090) until Ctrl-C; `--worker` also serves MSW's worker
 * script at the root, as `npx msw init <public dir>` would.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { serveStatic } from './static-server.ts'

const root = join(import.meta.dirname, '..')
const page = join(root, 'examples', 'sandbox', 'index.html')
for (const f of ['svc.min.js', 'svc-sandbox.min.js']) {
  if (!existsSync(join(root, 'dist', 'javascript', 'v2.2', f))) {
    console.error(`dist/javascript/v2.2/${f} is missing: run \`npm run build\`.`)
    process.exit(1)
  }
}

console.log(`
The offline sandbox example is built. Open it:

  from disk:          ${pathToFileURL(page).href}
  from a web server:  npm run example:sandbox -- --serve     (or: python3 -m http.server -d ${root} 8090)
                      then http://localhost:8090/examples/sandbox/
`)

if (process.argv.includes('--serve')) {
  const port = Number(process.env.PORT ?? 8090)
  const server = await serveStatic(root, { port, host: 'localhost', worker: process.argv.includes('--worker') })
  console.log(
    `Serving ${root} at http://localhost:${port}/examples/sandbox/ (Ctrl-C stops)${process.argv.includes('--worker') ? ', with /mockServiceWorker.js' : ''}`,
  )
  process.on('SIGINT', () => {
    void server.close().then(() => process.exit(0))
  })
}
