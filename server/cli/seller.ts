/**
 * Seller administration for the operator, against the same DATABASE_URL as the server:
 *
 *   npm run seller -- create --name "Shop" --origin https://shop.example [--origin URL2] [--sandbox]
 *   npm run seller -- list
 *
 * A new API key is printed once: only its hash is stored, so it cannot be shown again.
 */
import { parseArgs } from 'node:util'
import { loadConfig, ConfigError } from '../config.ts'
import { startCore } from '../bootstrap.ts'

const USAGE = `Usage:
  npm run seller -- create --name NAME --origin URL [--origin URL ...] [--sandbox]
  npm run seller -- list

  create   adds a seller and prints its new API key (once)
           --name      the seller's display name (required)
           --origin    a browser origin allowed to call the API with trip access tokens,
                       e.g. https://shop.example (repeatable; optional for backend-only sellers)
           --sandbox   the seller's trips use the sandbox airline and its test scenarios
  list     shows every seller

The database is DATABASE_URL (default sqlite:./data/svc.db), as for npm start.`

class UsageError extends Error {}

/** An origin is scheme://host[:port] and nothing else; browsers send exactly that in the Origin header. */
export function parseOrigin(input: string): string {
  let url: URL
  try { url = new URL(input) } catch { throw new UsageError(`--origin ${JSON.stringify(input)} is not a URL; use the form https://shop.example`) }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`--origin ${input}: only http and https origins exist for browsers`)
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    throw new UsageError(`--origin ${input}: an origin has no path, query or credentials; did you mean ${url.origin}?`)
  }
  return url.origin
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE)
    return command ? 0 : 2
  }
  if (command !== 'create' && command !== 'list') throw new UsageError(`unknown command ${JSON.stringify(command)}`)

  const { values } = parseArgs({
    args: rest,
    options: command === 'create'
      ? { name: { type: 'string' }, origin: { type: 'string', multiple: true }, sandbox: { type: 'boolean', default: false } }
      : {},
    strict: true,
    allowPositionals: false,
  })

  let parsed: { name: string; origins: string[]; sandbox: boolean } | undefined
  if (command === 'create') {
    const v = values as { name?: string; origin?: string[]; sandbox?: boolean }
    const name = v.name?.trim()
    if (!name) throw new UsageError('create needs --name NAME')
    if (name.length > 200) throw new UsageError('--name is longer than 200 characters')
    parsed = { name, origins: [...new Set((v.origin ?? []).map(parseOrigin))], sandbox: v.sandbox ?? false }
  }

  const { store, core } = await startCore(loadConfig())
  try {
    if (parsed) {
      const { seller, apiKey } = await core.createSeller(parsed)
      console.log([
        `Created seller "${seller.name}"${seller.sandbox ? ' (sandbox)' : ''}`,
        `  seller_id  ${seller.seller_id}`,
        `  origins    ${seller.origins.length ? seller.origins.join(', ') : '(none: server-to-server only)'}`,
        '',
        `  API key    ${apiKey}`,
        '',
        'Store this key now: it is not kept by the service and cannot be shown again.',
        'It is for the seller\'s backend only (HTTP Basic, key as user name, empty password); never put it in a web page.',
      ].join('\n'))
    } else {
      const sellers = await store.listSellers()
      if (sellers.length === 0) {
        console.log('No sellers yet. Create one with: npm run seller -- create --name NAME --origin URL')
      } else {
        for (const s of sellers) {
          console.log(`${s.seller_id}  ${s.sandbox ? 'sandbox' : 'live   '}  ${s.created_at}  ${s.name}`)
          console.log(`    origins: ${s.origins.length ? s.origins.join(', ') : '(none)'}`)
        }
      }
    }
  } finally {
    await store.close()
  }
  return 0
}

run(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  if (err instanceof UsageError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
    console.error(`error: ${err.message}\n\n${USAGE}`)
    process.exit(2)
  }
  if (err instanceof ConfigError) {
    console.error(err.message)
    process.exit(2)
  }
  console.error('error:', err instanceof Error ? err.message : err)
  process.exit(1)
})
