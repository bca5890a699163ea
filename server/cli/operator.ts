/**
 * Operator keys for the admin API (docs/operations.md), against the same DATABASE_URL as the server:
 *
 *   npm run operator -- create --name NAME [--seller SELLER_ID] [--read-only]
 *   npm run operator -- list [--json]
 *   npm run operator -- revoke KEY_PREFIX_OR_ID
 *
 * A new key is printed once: only its hash is stored, so it cannot be shown again, and it is never logged.
 * Exit codes as the seller CLI's: 0 done, 2 a usage error (with the usage), 1 a refusal (one line).
 */
import { parseArgs } from 'node:util'
import { loadConfig } from '../config.ts'
import { runCommand, UsageError } from './exit.ts'
import { startCore } from '../bootstrap.ts'
import type { Core, ListedOperatorKey } from '../../core/core.ts'

const USAGE = `Usage:
  npm run operator -- create --name NAME [--seller SELLER_ID] [--read-only]
  npm run operator -- list [--json]
  npm run operator -- revoke KEY_PREFIX_OR_ID

  create   prints a new operator key for the admin API (/admin/v1/..., Authorization: Bearer KEY), once
           --name       who or what holds it (required)
           --seller     limits it to one seller: every other seller's objects are not found to it
           --read-only  reads only: every write of the admin API is refused to it (403)
  list     every operator key: name, prefix, seller limit, read-only, created, revoked (never a key)
           --json       as JSON
  revoke   the key stops working now, on every server: by its id, or its prefix as list shows it

The database is DATABASE_URL (default sqlite:./data/svc.db), as for npm start.`

const OPTIONS = {
  create: { name: { type: 'string' }, seller: { type: 'string' }, 'read-only': { type: 'boolean', default: false } },
  list: { json: { type: 'boolean', default: false } },
  revoke: {},
} as const
type Command = keyof typeof OPTIONS
const isCommand = (c: string): c is Command => Object.hasOwn(OPTIONS, c)

const line = (k: ListedOperatorKey) =>
  [
    `${k.key_id}  ${k.prefix}…  "${k.name}"`,
    `seller ${k.seller_id ?? '(every seller)'}`,
    k.read_only ? 'read-only' : 'read-write',
    `created ${k.created_at}`,
    k.revoked_at ? `REVOKED ${k.revoked_at}` : 'active',
  ].join('  ')

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
    allowPositionals: command === 'revoke',
  })
  // Every argument is checked before the database is opened.
  let act: (core: Core) => Promise<void>
  if (command === 'create') {
    const v = values as { name?: string; seller?: string; 'read-only'?: boolean }
    const name = v.name?.trim()
    if (!name) throw new UsageError('create needs --name NAME')
    if (v.seller !== undefined && !v.seller.trim()) throw new UsageError('--seller needs a SELLER_ID')
    const input = {
      name,
      ...(v.seller === undefined ? {} : { sellerId: v.seller.trim() }),
      readOnly: v['read-only'] === true,
    }
    act = async (core) => {
      const { key, listed } = await core.createOperatorKey(input)
      console.log(
        [
          `Created operator key "${listed.name}" (${listed.key_id})`,
          `  seller     ${listed.seller_id ?? '(every seller)'}`,
          `  access     ${listed.read_only ? 'read-only' : 'read and write'}`,
          '',
          `  key        ${key}`,
          '',
          'Store this key now: it is not kept by the service and cannot be shown again.',
          'Send it as "Authorization: Bearer <key>" to /admin/v1/...; it never works on the public API.',
        ].join('\n'),
      )
    }
  } else if (command === 'list') {
    const json = (values as { json?: boolean }).json === true
    act = async (core) => {
      const keys = await core.listOperatorKeys()
      if (json) console.log(JSON.stringify(keys, null, 2))
      else if (keys.length === 0)
        console.log('No operator keys yet. Create one with: npm run operator -- create --name NAME')
      else for (const k of keys) console.log(line(k))
    }
  } else {
    if (positionals.length !== 1)
      throw new UsageError('revoke takes one KEY_PREFIX_OR_ID (npm run operator -- list shows them)')
    const given = positionals[0]!
    act = async (core) => {
      const k = await core.revokeOperatorKey(given)
      console.log(`Revoked operator key "${k.name}" (${k.prefix}…) at ${k.revoked_at}: it is refused from now on.`)
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

runCommand(() => run(process.argv.slice(2)), USAGE)
