/**
 * Seller administration for the operator, against the same DATABASE_URL (and SIGNING_KEY_SECRET) as the
 * server (docs/decisions.md "Real supply: a supplier per seller"):
 *
 *   npm run seller -- create --name "Shop" [--origin URL ...] [--sandbox] [--supplier NAME] [--duffel-token T]
 *   npm run seller -- update SELLER_ID [--add-origin URL ...] [--remove-origin URL ...] [--supplier NAME] [--duffel-token T] [--remove-token] [--force]
 *   npm run seller -- show SELLER_ID
 *   npm run seller -- rotate-key SELLER_ID [--grace-hours H]
 *   npm run seller -- revoke-key SELLER_ID [--prefix P] [--end-trip-tokens]
 *   npm run seller -- disable SELLER_ID / enable SELLER_ID
 *   npm run seller -- list [--json]
 *
 * A new API key is printed once: only its hash is stored, so it cannot be shown again. A supplier token is
 * stored sealed and never printed, nor is any key. Exit codes: 0 done, 2 a usage error (with the usage), 1 a
 * refusal (one line).
 */
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.ts'
import { runCommand, UsageError } from './exit.ts'
import { startCore } from '../bootstrap.ts'
import type {
  Core,
  ListedKey,
  RevokedKeys,
  SellerListing,
  SellerSwitch,
  SupplierChoice,
  UnfinishedTrips,
  UpdatedSeller,
} from '../../core/core.ts'
import { sellerView } from '../../core/core.ts'
import type { SellerRecord } from '../../core/ports/records.ts'

const USAGE = `Usage:
  npm run seller -- create --name NAME [--origin URL ...] [--sandbox] [--supplier NAME] [--duffel-token TOKEN]
  npm run seller -- update SELLER_ID [--add-origin URL ...] [--remove-origin URL ...] [--supplier NAME] [--duffel-token TOKEN] [--remove-token] [--force]
  npm run seller -- show SELLER_ID
  npm run seller -- rotate-key SELLER_ID [--grace-hours HOURS]
  npm run seller -- revoke-key SELLER_ID [--prefix PREFIX] [--end-trip-tokens]
  npm run seller -- disable SELLER_ID
  npm run seller -- enable SELLER_ID
  npm run seller -- list [--json]

  create       adds a seller and prints its new API key (once)
               --name          the seller's display name (required)
               --origin        a browser origin allowed to call the API with trip access tokens,
                               e.g. https://shop.example (repeatable; optional for backend-only sellers)
               --sandbox       a sandbox seller: test keys, test scenarios, suppliers' test modes
               --supplier      where its offers come from: sandbox (the sandbox airline, sandbox sellers
                               only; their default) or duffel (the seller's own Duffel account). A live
                               seller needs a real one: --supplier duffel with its duffel_live_ token
               --duffel-token  the seller's Duffel access token: duffel_test_... for a sandbox seller,
                               duffel_live_... for a live one (implies --supplier duffel); - reads it
                               from standard input (out of the shell's history). Stored sealed under
                               SIGNING_KEY_SECRET, which must be set; never shown again
  update       changes a seller: --add-origin URL, --remove-origin URL (repeatable),
               --supplier and --duffel-token as for create. A live seller is never left without a
               real supplier. Switching supplier keeps the sealed token of the one left (the trips
               created on it still use it; switching back takes it up again)
               --remove-token  removes the sealed tokens of suppliers the seller does not sell from
               --force         switch supplier (or remove a token) although the seller has trips not
                               yet fulfilled: trips whose first departure is still ahead and that have an
                               extra in the basket not yet ordered, or an order not final (awaiting_ticketing,
                               queued, in_progress or cancelling). Without it, such trips refuse the change
  show         shows one seller: live or sandbox, enabled or disabled, its supplier (whether it has
               credentials, never a token), origins, and keys by prefix with their state:
               active, grace (rotated, works until its expiry), revoked or expired
  rotate-key   prints a new API key (once); the seller's current keys keep working
               --grace-hours   that many hours more (default 24; 0: they stop now)
  revoke-key   makes keys stop working now (on every server within 10 seconds), with the trip
               creation tokens they issued; trip access and refresh tokens reach one trip each and
               keep working until they expire (30 and 45 minutes by default)
               --prefix        the key to revoke, by its prefix as list shows it;
                               without it, every key of the seller but the newest
               --end-trip-tokens  also ends every trip access and refresh token of the seller now
  disable      refuses every request made with the seller's API keys, trip creation tokens and trip
               access tokens (403 seller_disabled), on every server within 10 seconds; orders, checks
               and webhooks already under way go on. Nothing is revoked: enable undoes it
  enable       lets a disabled seller's keys and tokens work again (within 10 seconds)
  list         shows every seller as show does, oldest first
               --json          as JSON (an array, one object per seller; never a key or a token)

The database is DATABASE_URL (default sqlite:./data/svc.db), and SIGNING_KEY_SECRET the server's, as for npm start.`

const COMMANDS = ['create', 'update', 'show', 'rotate-key', 'revoke-key', 'disable', 'enable', 'list'] as const
type Command = (typeof COMMANDS)[number]
const isCommand = (c: string): c is Command => (COMMANDS as readonly string[]).includes(c)

const SUPPLIER_OPTIONS = { supplier: { type: 'string' }, 'duffel-token': { type: 'string' } } as const
const OPTIONS = {
  create: {
    name: { type: 'string' },
    origin: { type: 'string', multiple: true },
    sandbox: { type: 'boolean', default: false },
    ...SUPPLIER_OPTIONS,
  },
  update: {
    'add-origin': { type: 'string', multiple: true },
    'remove-origin': { type: 'string', multiple: true },
    ...SUPPLIER_OPTIONS,
    'remove-token': { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
  },
  show: {},
  'rotate-key': { 'grace-hours': { type: 'string' } },
  'revoke-key': { prefix: { type: 'string' }, 'end-trip-tokens': { type: 'boolean', default: false } },
  disable: {},
  enable: {},
  list: { json: { type: 'boolean', default: false } },
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
  if (!token.trim()) throw new UsageError("--duffel-token needs the seller's Duffel access token")
  if (name && name !== 'duffel')
    throw new UsageError(`--duffel-token is a token for --supplier duffel, not --supplier ${name}`)
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
  if (positionals.length > 1)
    throw new UsageError(`${command} takes one SELLER_ID, not ${positionals.length} (${positionals.join(' ')})`)
  return positionals[0]!
}

const supplierLine = (s: SellerRecord) =>
  `${s.supplier.name} (${s.supplier.credentials ? 'credentials set' : 'no credentials'})`
const originsLine = (s: SellerRecord) => (s.origins.length ? s.origins.join(', ') : '(none: server-to-server only)')
const keptNames = (s: SellerRecord) => Object.keys(s.kept_credentials ?? {}).sort()
/** The tokens a seller keeps of suppliers it switched away from; none: nothing to say. */
const keptLine = (s: SellerRecord) =>
  keptNames(s).length
    ? `${keptNames(s).join(', ')} (sealed, of a supplier it sold from before: its trips created there still use it; update --remove-token removes it)`
    : null
const statusLine = (s: SellerRecord) =>
  s.disabled_at === undefined
    ? 'enabled'
    : `DISABLED since ${s.disabled_at}: its API keys and trip tokens are refused (403 seller_disabled); npm run seller -- enable ${s.seller_id} undoes it`
/** A key by its prefix, with its state: active, grace (rotated, works until its expiry), revoked or expired. */
function keyLine(k: ListedKey): string {
  const when =
    k.state === 'active'
      ? 'never expires'
      : k.state === 'grace'
        ? `works until ${k.expires_at}`
        : k.state === 'revoked'
          ? `revoked ${k.revoked_at}`
          : `expired ${k.expires_at}`
  return `${k.prefix}…  ${k.state.padEnd(7)}  created ${k.created_at}  ${when}`
}
/** What a live seller that has no real supplier (one made before they needed one) must do before it can sell. */
const liveNeedsSupplier = (s: SellerRecord) =>
  !s.sandbox && s.supplier.name === 'sandbox'
    ? [
        '',
        `Note: a live seller sells nothing until it has a real supplier: npm run seller -- update ${s.seller_id} --duffel-token duffel_live_...`,
      ]
    : []

/** A seller as `show` prints it. */
function sellerText({ seller: s, keys }: SellerListing): string {
  const kept = keptLine(s)
  return [
    `Seller "${s.name}" (${s.sandbox ? 'sandbox' : 'live'})`,
    `  seller_id    ${s.seller_id}`,
    `  created      ${s.created_at}`,
    `  status       ${statusLine(s)}`,
    `  supplier     ${supplierLine(s)}`,
    ...(kept ? [`  kept token   ${kept}`] : []),
    `  origins      ${originsLine(s)}`,
    ...(s.trip_tokens_after
      ? [`  trip tokens  those issued before ${s.trip_tokens_after} were ended (revoke-key --end-trip-tokens)`]
      : []),
    `  keys         ${keys.length ? '' : '(none)'}`.trimEnd(),
    ...keys.map((k) => `    ${keyLine(k)}`),
    ...liveNeedsSupplier(s),
  ].join('\n')
}

/** An origin is scheme://host[:port] and nothing else; browsers send exactly that in the Origin header. */
export function parseOrigin(input: string, flag = '--origin'): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new UsageError(`${flag} ${JSON.stringify(input)} is not a URL; use the form https://shop.example`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`${flag} ${input}: only http and https origins exist for browsers`)
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    throw new UsageError(`${flag} ${input}: an origin has no path, query or credentials; did you mean ${url.origin}?`)
  }
  return url.origin
}

/** What a command does once the database is open. */
type Action = (core: Core) => Promise<void>

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE)
    return command ? 0 : 2
  }
  if (!isCommand(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`)

  const { values, positionals } = parseArgs({
    args: rest,
    options: OPTIONS[command],
    strict: true,
    allowPositionals: command !== 'create' && command !== 'list',
  })
  // Every argument is checked before the database is opened.
  const act = await checkedAction(command, values, positionals)

  const { store, core } = await startCore(loadConfig())
  try {
    await act(core)
  } finally {
    await store.close()
  }
  return 0
}

/** The command's action, its arguments checked: a wrong one throws a UsageError. */
async function checkedAction(command: Command, values: object, positionals: string[]): Promise<Action> {
  switch (command) {
    case 'create':
      return createAction(values as CreateValues)
    case 'update':
      return updateAction(values as UpdateValues, positionals)
    case 'show':
      return showAction(positionals)
    case 'disable':
    case 'enable':
      return switchAction(command, positionals)
    case 'rotate-key':
      return rotateKeyAction(values as { 'grace-hours'?: string }, positionals)
    case 'revoke-key':
      return revokeKeyAction(values as { prefix?: string; 'end-trip-tokens'?: boolean }, positionals)
    case 'list':
      return listAction((values as { json?: boolean }).json === true)
  }
}

interface CreateValues {
  name?: string
  origin?: string[]
  sandbox?: boolean
  supplier?: string
  'duffel-token'?: string
}

async function createAction(v: CreateValues): Promise<Action> {
  const name = v.name?.trim()
  if (!name) throw new UsageError('create needs --name NAME')
  if (name.length > 200) throw new UsageError('--name is longer than 200 characters')
  const supplier = await supplierChoice(v)
  const input = {
    name,
    origins: [...new Set((v.origin ?? []).map((o) => parseOrigin(o)))],
    sandbox: v.sandbox ?? false,
    ...(supplier ? { supplier } : {}),
  }
  return async (core) => {
    const { seller, apiKey } = await core.createSeller(input)
    console.log(
      [
        `Created seller "${seller.name}"${seller.sandbox ? ' (sandbox)' : ''}`,
        `  seller_id  ${seller.seller_id}`,
        `  origins    ${originsLine(seller)}`,
        `  supplier   ${supplierLine(seller)}`,
        '',
        `  API key    ${apiKey}`,
        '',
        'Store this key now: it is not kept by the service and cannot be shown again.',
        "It is for the seller's backend only (HTTP Basic, key as user name, empty password); never put it in a web page.",
      ].join('\n'),
    )
  }
}

interface UpdateValues {
  'add-origin'?: string[]
  'remove-origin'?: string[]
  supplier?: string
  'duffel-token'?: string
  'remove-token'?: boolean
  force?: boolean
}

async function updateAction(v: UpdateValues, positionals: string[]): Promise<Action> {
  const sellerId = sellerIdOf('update', positionals)
  const supplier = await supplierChoice(v)
  const removeToken = v['remove-token'] === true
  const change = {
    addOrigins: [...new Set((v['add-origin'] ?? []).map((o) => parseOrigin(o, '--add-origin')))],
    removeOrigins: [...new Set((v['remove-origin'] ?? []).map((o) => parseOrigin(o, '--remove-origin')))],
    ...(supplier ? { supplier } : {}),
    removeToken,
    force: v.force === true,
  }
  if (!change.addOrigins.length && !change.removeOrigins.length && !supplier && !removeToken) {
    throw new UsageError(
      'update needs a change: --add-origin, --remove-origin, --supplier, --duffel-token or --remove-token',
    )
  }
  if (change.force && !supplier && !removeToken)
    throw new UsageError(
      '--force goes with --supplier, --duffel-token or --remove-token: it lets a change of supplier go ahead although trips are not yet fulfilled',
    )
  return async (core) => {
    console.log(updatedText(await core.updateSeller(sellerId, change)))
  }
}

function updatedText({ seller, unfinished }: UpdatedSeller): string {
  const kept = keptLine(seller)
  return [
    `Updated seller "${seller.name}"${seller.sandbox ? ' (sandbox)' : ''}`,
    `  seller_id   ${seller.seller_id}`,
    `  origins     ${originsLine(seller)}`,
    `  supplier    ${supplierLine(seller)}`,
    ...(kept ? [`  kept token  ${kept}`] : []),
    '',
    'Every server applies it within 10 seconds.',
    ...(unfinished ? [forcedLine(seller, unfinished)] : []),
  ].join('\n')
}

/** The trips a forced change went ahead despite, and whether their supplier can still serve them. */
function forcedLine(seller: SellerRecord, unfinished: UnfinishedTrips): string {
  return `--force: ${unfinished.count} trip${unfinished.count === 1 ? '' : 's'} not yet fulfilled stay${unfinished.count === 1 ? 's' : ''} on ${unfinished.suppliers.join(' and ')} (${unfinished.tripIds.join(', ')}${unfinished.count > unfinished.tripIds.length ? ', …' : ''})${
    unfinished.stranded.length
      ? `; ${unfinished.stranded.join(' and ')} has no token for them any more, so their checks, fulfillment and orders there fail (supplier_not_configured).`
      : keptNames(seller).some((n) => unfinished.suppliers.includes(n))
        ? ', served with its kept token.'
        : '.'
  }`
}

function showAction(positionals: string[]): Action {
  const sellerId = sellerIdOf('show', positionals)
  return async (core) => {
    console.log(sellerText(await core.showSeller(sellerId)))
  }
}

function switchAction(command: 'disable' | 'enable', positionals: string[]): Action {
  const sellerId = sellerIdOf(command, positionals)
  return async (core) => {
    const result = command === 'disable' ? await core.disableSeller(sellerId) : await core.enableSeller(sellerId)
    console.log(command === 'disable' ? disabledText(result) : enabledText(result))
  }
}

function disabledText({ seller, changed }: SellerSwitch): string {
  const who = `seller "${seller.name}" (${seller.seller_id})`
  return changed
    ? [
        `Disabled ${who} at ${seller.disabled_at}.`,
        'On every server within 10 seconds, every request made with its API keys, trip creation tokens or trip access tokens is refused (403 seller_disabled).',
        'Orders, checks and webhooks already under way go on. Nothing is revoked: npm run seller -- enable ' +
          seller.seller_id +
          ' makes them work again.',
      ].join('\n')
    : `The ${who} was already disabled (since ${seller.disabled_at}): nothing changed.`
}

function enabledText({ seller, changed }: SellerSwitch): string {
  const who = `seller "${seller.name}" (${seller.seller_id})`
  return changed
    ? `Enabled ${who}: its API keys and trip tokens work again on every server within 10 seconds (those that have not expired or been revoked meanwhile).`
    : `The ${who} is not disabled: nothing changed.`
}

function rotateKeyAction(v: { 'grace-hours'?: string }, positionals: string[]): Action {
  const sellerId = sellerIdOf('rotate-key', positionals)
  const given = v['grace-hours']
  if (given !== undefined && !/^\d+(\.\d+)?$/.test(given.trim()))
    throw new UsageError(
      `--grace-hours ${JSON.stringify(given)} is not a number of hours (e.g. 24, or 0 to stop the old keys now)`,
    )
  const graceHours = given === undefined ? 24 : Number(given)
  return async (core) => {
    const { apiKey, graceUntil, previous } = await core.rotateApiKey(sellerId, graceHours)
    const old = previous.map((k) => k.prefix).join(', ')
    console.log(
      [
        `New key for seller ${sellerId}`,
        '',
        `  API key    ${apiKey}`,
        '',
        'Store this key now: it is not kept by the service and cannot be shown again.',
        previous.length === 0
          ? 'The seller had no other working key.'
          : graceHours === 0
            ? `The previous keys (${old}) stopped working now (on every server within 10 seconds).`
            : `The previous keys (${old}) keep working until ${graceUntil} (${graceHours} hours), then stop.`,
      ].join('\n'),
    )
  }
}

function revokeKeyAction(v: { prefix?: string; 'end-trip-tokens'?: boolean }, positionals: string[]): Action {
  const sellerId = sellerIdOf('revoke-key', positionals)
  // As list shows it (with its ellipsis) or without.
  const prefix = v.prefix?.trim().replace(/(…|\.\.\.)$/, '')
  if (v.prefix !== undefined && !prefix) throw new UsageError('--prefix needs a key prefix, as list shows it')
  return async (core) => {
    const end = v['end-trip-tokens'] === true
    const result = await core.revokeApiKeys(sellerId, prefix, { endTripTokens: end })
    console.log(revokedText(sellerId, result, end))
  }
}

function revokedText(sellerId: string, { revoked, alreadyExpired, kept }: RevokedKeys, end: boolean): string {
  const lines = revoked.map(
    (k) =>
      `Revoked ${k.prefix}… (created ${k.created_at}): it stops working now, on every server within 10 seconds, and so do the trip creation tokens it issued.`,
  )
  lines.push(
    end
      ? "Ended every trip access and refresh token of the seller (on every server within 10 seconds): travellers mid-checkout need a new trip session from the seller's backend."
      : 'Trip access tokens (30 minutes) and refresh tokens (45 minutes) keep working until they expire, each for its one trip; --end-trip-tokens ends them now.',
  )
  for (const k of alreadyExpired) lines.push(`${k.prefix}… had already expired (${k.expires_at}).`)
  if (kept) {
    const expired = kept.expires_at !== null && kept.expires_at <= new Date().toISOString()
    lines.push(
      `Kept the newest key ${kept.prefix}… (created ${kept.created_at})${expired ? `, which has expired too: make a new one with npm run seller -- rotate-key ${sellerId}` : ''}.`,
    )
  }
  if (!revoked.length && !alreadyExpired.length) lines.push('Nothing to revoke: the seller has no other key.')
  return lines.join('\n')
}

function listAction(json: boolean): Action {
  return async (core) => {
    const sellers = await core.listSellers()
    if (json) {
      console.log(JSON.stringify(sellers.map(sellerView), null, 2))
      return
    }
    if (sellers.length === 0) {
      console.log('No sellers yet. Create one with: npm run seller -- create --name NAME --origin URL')
      return
    }
    for (const { seller: s, keys } of sellers) {
      console.log(
        `${s.seller_id}  ${s.sandbox ? 'sandbox' : 'live   '}  ${s.created_at}  ${s.name}${s.disabled_at === undefined ? '' : `  (DISABLED since ${s.disabled_at})`}`,
      )
      console.log(`    supplier: ${supplierLine(s)}`)
      const kept = keptNames(s)
      if (kept.length) console.log(`    kept token: ${kept.join(', ')} (of a supplier it sold from before)`)
      console.log(`    origins: ${s.origins.length ? s.origins.join(', ') : '(none)'}`)
      for (const key of keys) console.log(`    key: ${keyLine(key)}`)
    }
  }
}

runCommand(() => run(process.argv.slice(2)), USAGE)
