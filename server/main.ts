/**
 * The service alone: the API, its docs and the browser SDK, with the job worker in-process unless WORKER=off
 * (server/serve.ts). `npm start` runs it with the demo checkout (examples/seller-checkout/main.ts);
 * `npm run start:service` runs this.
 */
import { serve } from './serve.ts'

serve().catch((err) => {
  console.error('The server could not start:', err instanceof Error ? err.message : err)
  process.exit(1)
})
