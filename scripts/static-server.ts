/**
 * A plain static file server, as a seller might put the sandbox example behind (`npm run example:sandbox
 * -- --serve`, and the offline-page test): files under `root`, `index.html` for a folder, nothing else.
 * With `worker: true` it also serves MSW's `mockServiceWorker.js` at `/` (what `npx msw init <dir>`
 * would put in a site's public folder), so the sandbox can intercept the page's own fetch calls too.
 */
import { createServer, type Server } from 'node:http'
import { createReadStream, existsSync, statSync } from 'node:fs'
import { extname, join, normalize, sep } from 'node:path'
import type { AddressInfo } from 'node:net'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

export interface StaticServer {
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** Every request the server received: `METHOD /path`, in order. */
  requests: string[]
  close(): Promise<void>
}

export interface StaticServerOptions {
  port?: number
  host?: string
  /** Serve MSW's worker script at /mockServiceWorker.js. */
  worker?: boolean
}

const WORKER_SCRIPT = join(import.meta.dirname, '..', 'node_modules', 'msw', 'lib', 'mockServiceWorker.js')

export function serveStatic(root: string, opts: StaticServerOptions = {}): Promise<StaticServer> {
  const requests: string[] = []
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    requests.push(`${req.method} ${path}`)
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end()
      return
    }
    let file = path === '/mockServiceWorker.js' && opts.worker ? WORKER_SCRIPT : normalize(join(root, path))
    if (file !== WORKER_SCRIPT && file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) {
      res.writeHead(403).end()
      return
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html')
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found')
      return
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    })
    if (req.method === 'HEAD') res.end()
    else createReadStream(file).pipe(res)
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject).listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const { address, port } = server.address() as AddressInfo
      resolve({
        origin: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
        requests,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections()
            server.close(() => r())
          }),
      })
    })
  })
}
