/**
 * Seller administration for the operator, against the same DATABASE_URL (and SIGNING_KEY_SECRET) as the
 * server (docs/decisions.md "Real supply: a supplier per seller"):
 *
 *   npm run seller -- create --name "Shop" [--origin URL ...] [--sandbox] [--supplier NAME] [--duffel-token T]
 *   npm run seller -- update SELLER_ID [--add-origin URL ...] [--remove-origin URL ...] [--supplier NAME] [--duffel-token T]
 *   npm run seller -- rotate-key SELLER_ID [--grace-hours H]
 *   npm run seller -- revoke-key SELLER_ID [--prefix P] [--end-trip-tokens]
 *   npm run seller -- list
 *
 * A new API key is printed once: only its hash is stored, so it cannot be shown again. A supplier token is
 * stored sealed and never printed. Exit codes: 0 done, 2 a usage error (with the usage), 1 a refusal (one line).
 */
import { parseArgs } from 'node:util'
import { loadConfig, ConfigError } from '../config.ts'
import { startCore } from '../bootstrap.ts'
import { isProblemError } from '../../core/shared/errors.ts'
import type { Core, KeyInfo, SupplierChoice } from '../../core/core.ts'
import type { SellerRecord } from '../../core/ports/records.ts'

const USAGE = `Usage:
  npm run seller -- create --name NAME [--origin URL ...] [--sandbox] [--supplier NAME] [--duffel-token TOKEN]
  npm run seller -- update SELLER_ID [--add-origin URL ...] [--remove-origin URL ...] [--supplier NAME] [--duffel-token TOKEN]
  npm run seller -- rotate-key SELLER_ID [--grace-hours HOURS]
  npm run seller -- revoke-key SELLER_ID [--prefix PREFIX] [--end-trip-tokens]
  npm run seller -- list

  create       adds a seller and prints its new API key (once)
               --name          the seller's display name (required)
               --origin        a browser origin allowed to call the API with trip access tokens,
                               e.g. https://shop.example (repeatable; optional for backend-only sellers)
               --sandbox       a sandbox seller: test keys, test scenarios, suppliers' test modes
               --supplier      where its offers come from: sandbox (the sandbox airline, sandbox sellers
                               only; the default) or duffel (the seller's own Duffel account)
               --duffel-token  the seller's Duffel access token: duffel_test_... for a sandbox seller,
                               duffel_live_... for a live one (implies --supplier duffel); - reads it
                               from standard input (out of the shell's history). Stored sealed under
                               SIGNING_KEY_SECRET, which must be set; never shown again
  update       changes a seller: --add-origin URL, --remove-origin URL (repeatable),
               --supplier and --duffel-token as for create
  rotate-key   prints a new API key (once); the seller's current keys keep working
               --grace-hours   that many hours more (default 24; 0: they stop now)
  revoke-key   makes keys stop working now (on every server within 10 seconds), with the trip
               creation tokens they issued; trip access and refresh tokens reach one trip each and
               keep working until they expire (30 and 45 minutes by default)
               --prefix        the key to revoke, by its prefix as list shows it;
                               without it, every key of the seller but the newest
               --end-trip-tokens  also ends every trip access and refresh token of the seller now
  list         shows every seller: its supplier (never a token), origins, and keys by prefix with their expiry

The database is DATABASE_URL (default sqlite:./data/svc.db), and SIGNING_KEY_SECRET the server's, as for npm start.`

class UsageError extends Error {}

const COMMANDS = ['create', 'update', 'rotate-key', 'revoke-key', 'list'] as const
type Command = typeof COMMANDS[number]
const isCommand = (c: string): c is Command => (COMMANDS as readonly string[]).includes(c)

const SUPPLIER_OPTIONS = { supplier: { type: 'string' }, 'duffel-token': { type: 'string' } } as const
const OPTIONS = {
  create: { name: { type: 'string' }, origin: { type: 'string', multiple: true }, sandbox: { type: 'boolean', default: false }, ...SUPPLIER_OPTIONS },
  update: { 'add-origin': { type: 'string', multiple: true }, 'remove-origin': { type: 'string', multiple: true }, ...SUPPLIER_OPTIONS },
  'rotate-key': { 'grace-hours': { type: 'string' } },
  'revoke-key': { prefix: { type: 'string' }, 'end-trip-tokens': { type: 'boolean', default: false } },
  list: {},
} as const

/**
 * --supplier and --duffel-token as a supplier choice; `--duffel-token` alone means Duffel. `--duffel-token -`
 * reads the token from standard input, so it stays out of the shell's history and the process list.
 */
async function supplierChoice(v: { supplier?: string; 'duffel-token'?: string }): Promise<SupplierChoice | undefined> {
  const token = v['duffel-token'] === '-' ? await readStdin() : v['duffel-token']
  const name = v.supplier?.trim()
  if (v.supplier !== undefined && !name) throw new UsageError('--supplier needs a name, e.g. --supplier duffel')
  if (token === undefined) return name ? { name } : undefined
  if (!token.trim()) throw new UsageError('--duffel-token needs the seller\'s Duffel access token')
  if (name && name !== 'duffel') throw new UsageError(`--duffel-token is a token for --supplier duffel, not --supplier ${name}`)
  return { name: 'duffel', credentials: token.trim() }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array))
  return Buffer.concat(chunks).toString('utf8')
}

/** The one SELLER_ID a command takes. */
function sellerIdOf(command: string, positionals: string[]): string {
  if (positionals.length === 0) throw new UsageError(`${command} needs a SELLER_ID (npm run seller -- list shows them)`)
  if (positionals.length > 1) throw new UsageError(`${command} takes one SELLER_ID, not ${positionals.length} (${positionals.join(' ')})`)
  return positionals[0]!
}

const supplierLine = (s: SellerRecord) => `${s.supplier.name} (${s.supplier.credentials ? 'credentials set' : 'no credentials'})`
const originsLine = (s: SellerRecord) => s.origins.length ? s.origins.join(', ') : '(none: server-to-server only)'
function keyLine(k: KeyInfo, now: string): string {
  const until = k.expires_at === null ? 'never expires' : k.expires_at > now ? `works until ${k.expires_at}` : `expired ${k.expires_at}`
  return `${k.prefix}…  created ${k.created_at}  ${until}`
}
/** What a live seller that still has the sandbox airline must do before it can sell. */
const liveNeedsSupplier = (s: SellerRecord) => !s.sandbox && s.supplier.name === 'sandbox'
  ? ['', `Note: a live seller sells nothing until it has a real supplier: npm run seller -- update ${s.seller_id} --duffel-token duffel_live_...`]
  : []

/** An origin is scheme://host[:port] and nothing else; browsers send exactly that in the Origin header. */
export function parseOrigin(input: string, flag = '--origin'): string {
  let url: URL
  try { url = new URL(input) } catch { throw new UsageError(`${flag} ${JSON.stringify(input)} is not a URL; use the form https://shop.example`) }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${flag} ${input}: only http and https origins exist for browsers`)
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    throw new UsageError(`${flag} ${input}: an origin has no path, query or credentials; did you mean ${url.origin}?`)
  }
  return url.origin
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE)
    return command ? 0 : 2
  }
  if (!isCommand(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`)

  const { values, positionals } = parseArgs({ args: rest, options: OPTIONS[command], strict: true, allowPositionals: command !== 'create' && command !== 'list' })
  // Every argument is checked before the database is opened.
  let act: (core: Core) => Promise<void>
  if (command === 'create') {
    const v = values as { name?: string; origin?: string[]; sandbox?: boolean; supplier?: string; 'duffel-token'?: string }
    const name = v.name?.trim()
    if (!name) throw new UsageError('create needs --name NAME')
    if (name.length > 200) throw new UsageError('--name is longer than 200 characters')
    const supplier = await supplierChoice(v)
    const input = { name, origins: [...new Set((v.origin ?? []).map((o) => parseOrigin(o)))], sandbox: v.sandbox ?? false, ...(supplier ? { supplier } : {}) }
    act = async (core) => {
      const { seller, apiKey } = await core.createSeller(input)
      console.log([
        `Created seller "${seller.name}"${seller.sandbox ? ' (sandbox)' : ''}`,
        `  seller_id  ${seller.seller_id}`,
        `  origins    ${originsLine(seller)}`,
        `  supplier   ${supplierLine(seller)}`,
        '',
        `  API key    ${apiKey}`,
        '',
        'Store this key now: it is not kept by the service and cannot be shown again.',
        'It is for the seller\'s backend only (HTTP Basic, key as user name, empty password); never put it in a web page.',
        ...liveNeedsSupplier(seller),
      ].join('\n'))
    }
  } else if (command === 'update') {
    const v = values as { 'add-origin'?: string[]; 'remove-origin'?: string[]; supplier?: string; 'duffel-token'?: string }
    const sellerId = sellerIdOf(command, positionals)
    const supplier = await supplierChoice(v)
    const change = {
      addOrigins: [...new Set((v['add-origin'] ?? []).map((o) => parseOrigin(o, '--add-origin')))],
      removeOrigins: [...new Set((v['remove-origin'] ?? []).map((o) => parseOrigin(o, '--remove-origin')))],
      ...(supplier ? { supplier } : {}),
    }
    if (!change.addOrigins.length && !change.removeOrigins.length && !supplier) {
      throw new UsageError('update needs a change: --add-origin, --remove-origin, --supplier or --duffel-token')
    }
    act = async (core) => {
      const seller = await core.updateSeller(sellerId, change)
      console.log([
        `Updated seller "${seller.name}"${seller.sandbox ? ' (sandbox)' : ''}`,
        `  seller_id  ${seller.seller_id}`,
        `  origins    ${originsLine(seller)}`,
        `  supplier   ${supplierLine(seller)}`,
        '',
        'Every server applies it within 10 seconds.',
        ...liveNeedsSupplier(seller),
      ].join('\n'))
    }
  } else if (command === 'rotate-key') {
    const v = values as { 'grace-hours'?: string }
    const sellerId = sellerIdOf(command, positionals)
    const given = v['grace-hours']
    if (given !== undefined && !/^\d+(\.\d+)?$/.test(given.trim())) throw new UsageError(`--grace-hours ${JSON.stringify(given)} is not a number of hours (e.g. 24, or 0 to stop the old keys now)`)
    const graceHours = given === undefined ? 24 : Number(given)
    act = async (core) => {
      const { apiKey, graceUntil, previous } = await core.rotateApiKey(sellerId, graceHours)
      const old = previous.map((k) => k.prefix).join(', ')
      console.log([
        `New key for seller ${sellerId}`,
        '',
        `  API key    ${apiKey}`,
        '',
        'Store this key now: it is not kept by the service and cannot be shown again.',
        previous.length === 0 ? 'The seller had no other working key.'
        : graceHours === 0 ? `The previous keys (${old}) stopped working now (on every server within 10 seconds).`
        : `The previous keys (${old}) keep working until ${graceUntil} (${graceHours} hours), then stop.`,
      ].join('\n'))
    }
  } else if (command === 'revoke-key') {
    const v = values as { prefix?: string; 'end-trip-tokens'?: boolean }
    const sellerId = sellerIdOf(command, positionals)
    // As list shows it (with its ellipsis) or without.
    const prefix = v.prefix?.trim().replace(/(…|\.\.\.)$/, '')
    if (v.prefix !== undefined && !prefix) throw new UsageError('--prefix needs a key prefix, as list shows it')
    act = async (core) => {
      const end = v['end-trip-tokens'] === true
      const { revoked, alreadyExpired, kept } = await core.revokeApiKeys(sellerId, prefix, { endTripTokens: end })
      const lines = revoked.map((k) => `Revoked ${k.prefix}… (created ${k.created_at}): it stops working now, on every server within 10 seconds, and so do the trip creation tokens it issued.`)
      lines.push(end
        ? 'Ended every trip access and refresh token of the seller (on every server within 10 seconds): travellers mid-checkout need a new trip session from the seller\'s backend.'
        : 'Trip access tokens (30 minutes) and refresh tokens (45 minutes) keep working until they expire, each for its one trip; --end-trip-tokens ends them now.')
      for (const k of alreadyExpired) lines.push(`${k.prefix}… had already expired (${k.expires_at}).`)
      if (kept) {
        const expired = kept.expires_at !== null && kept.expires_at <= new Date().toISOString()
        lines.push(`Kept the newest key ${kept.prefix}… (created ${kept.created_at})${expired ? `, which has expired too: make a new one with npm run seller -- rotate-key ${sellerId}` : ''}.`)
      }
      if (!revoked.length && !alreadyExpired.length) lines.push('Nothing to revoke: the seller has no other key.')
      console.log(lines.join('\n'))
    }
  } else {
    act = async (core) => {
      const sellers = await core.listSellers()
      if (sellers.length === 0) {
        console.log('No sellers yet. Create one with: npm run seller -- create --name NAME --origin URL')
        return
      }
      const now = new Date().toISOString()
      for (const { seller: s, keys } of sellers) {
        console.log(`${s.seller_id}  ${s.sandbox ? 'sandbox' : 'live   '}  ${s.created_at}  ${s.name}`)
        console.log(`    supplier: ${supplierLine(s)}`)
        console.log(`    origins: ${s.origins.length ? s.origins.join(', ') : '(none)'}`)
        for (const key of keys) console.log(`    key: ${keyLine(key, now)}`)
      }
    }
  }

  const { store, core } = await startCore(loadConfig())
  try {
    await act(core)
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
  // A refusal of the service (an unknown seller, a token that does not fit, no SIGNING_KEY_SECRET): one line.
  if (isProblemError(err) && err.status < 500) {
    console.error(`error: ${err.message}`)
    process.exit(1)
  }
  console.error('error:', err instanceof Error ? err.message : err)
  process.exit(1)
})
