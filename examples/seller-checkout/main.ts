/**
 * `npm start`: the service (server/serve.ts) with SkyShop, the demo checkout, on the same app: its page at
 * `/` and its backend under `/demo/` (backend.ts). The backend calls the API over HTTP with a sandbox
 * seller's key, as a seller's own backend would; this entry is the only place that knows both sides.
 */
import { serve, type Listening } from '../../server/serve.ts'
import { sellerCheckout } from './backend.ts'

const DEMO_CHECKOUT_SELLER = 'Demo checkout'

/**
 * The API key the demo's backend calls with: the demo seller's when this start knows it (SVC_DEMO_API_KEY,
 * or a seller just created on an empty database). Otherwise (its key was printed at an earlier start) a
 * sandbox seller "Demo checkout" (created the first time) gets a new key that lives only in this process's
 * memory: never printed, stored only as its hash, so the demo works on any database.
 */
async function demoCheckoutKey({ core, store, demo, ownOrigins }: Listening): Promise<string> {
  if (demo) return demo.apiKey
  const existing = (await store.listSellers()).find((s) => s.sandbox && s.name === DEMO_CHECKOUT_SELLER)
  if (!existing)
    return (await core.createSeller({ name: DEMO_CHECKOUT_SELLER, origins: ownOrigins, sandbox: true })).apiKey
  await core.addSellerOrigins(existing.seller_id, ownOrigins)
  return core.addApiKey(existing.seller_id)
}

// The backend learns the API's address and its key once the server listens.
let api: { apiBaseUrl: string; apiKey: string } | undefined

serve({
  register: async (app) => {
    await app.register(sellerCheckout, { apiBaseUrl: () => api?.apiBaseUrl, apiKey: () => api?.apiKey })
  },
  listening: async (ctx) => {
    api = { apiBaseUrl: ctx.loopbackBase, apiKey: await demoCheckoutKey(ctx) }
  },
  banner: (base) => [`  Demo       ${base}/  (a seller's checkout using the API and the widgets)`],
}).catch((err) => {
  console.error('The server could not start:', err instanceof Error ? err.message : err)
  process.exit(1)
})
