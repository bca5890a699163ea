/**
 * The operator's keys for the admin API (docs/operations.md): made, listed and revoked by `npm run operator`,
 * checked on every admin request. A key is shown once, when it is made, and kept as its SHA-256 only, as a
 * seller's API key is: a request's key is hashed and looked up by its hash, so how long the lookup takes says
 * nothing about how much of a guess was right (the seller keys' constant-time rule, core/application/sellers.ts).
 * A key is read from the store on every admin request, not cached: admin requests are few, and a revocation
 * then holds on every instance at once.
 */
import type { OperatorKeyRecord } from '../ports/records.ts'
import { ProblemError } from '../shared/errors.ts'
import { sha256Hex } from '../shared/crypto.ts'
import type { Ports } from './dependencies.ts'

/** What every operator key starts with: a seller's key (`svc_live_`, `svc_test_`) never does. */
export const OPERATOR_KEY_PREFIX = 'svc_op_'

/** Who is calling the admin API, once its key is checked: never the key, nor its hash. */
export interface Operator {
  key_id: string
  name: string
  /** The one seller it sees; null: every seller. */
  seller_id: string | null
  read_only: boolean
}

export interface NewOperatorKey {
  name: string
  /** Limits the key to this seller (which must exist). */
  sellerId?: string
  readOnly?: boolean
}

/** An operator key as listed: never the key, nor its hash. */
export interface ListedOperatorKey {
  key_id: string
  name: string
  prefix: string
  seller_id: string | null
  read_only: boolean
  created_at: string
  revoked_at: string | null
}

const listed = ({ key_hash: _hash, ...rest }: OperatorKeyRecord): ListedOperatorKey => rest

/** A new operator key: the key itself (shown once, never kept) and the key as listed. */
export async function createOperatorKey(
  ports: Ports,
  input: NewOperatorKey,
): Promise<{ key: string; listed: ListedOperatorKey }> {
  const name = input.name.trim()
  if (!name || name.length > 200)
    throw new ProblemError('validation_error', 'An operator key needs a name of 1 to 200 characters.')
  if (input.sellerId !== undefined && !(await ports.store.getSeller(input.sellerId)))
    throw new ProblemError('not_found', `Seller ${input.sellerId} does not exist.`)
  const key = `${OPERATOR_KEY_PREFIX}${ports.ids.secret(24)}`
  const record: OperatorKeyRecord = {
    key_id: ports.ids.uuid(),
    key_hash: sha256Hex(key),
    name,
    prefix: key.slice(0, 14),
    seller_id: input.sellerId ?? null,
    read_only: input.readOnly ?? false,
    created_at: ports.clock.now().toISOString(),
    revoked_at: null,
  }
  await ports.store.addOperatorKey(record)
  return { key, listed: listed(record) }
}

/** Every operator key, oldest first, revoked ones too. */
export async function listOperatorKeys(ports: Ports): Promise<ListedOperatorKey[]> {
  return (await ports.store.listOperatorKeys()).map(listed)
}

/**
 * Revokes the key `given` names: its id, its prefix as listed (or the start of it, when only one key has it),
 * or the whole key. It is refused (401) from now on, on every instance.
 */
export async function revokeOperatorKey(ports: Ports, given: string): Promise<ListedOperatorKey> {
  const keys = await ports.store.listOperatorKeys()
  const wanted = given.trim().replace(/(…|\.\.\.)$/, '')
  const exact = keys.find((k) => k.key_id === wanted || k.key_hash === sha256Hex(wanted))
  const found = exact
    ? [exact]
    : wanted.length >= OPERATOR_KEY_PREFIX.length + 1
      ? keys.filter((k) => k.prefix.startsWith(wanted) || wanted.startsWith(k.prefix))
      : []
  if (found.length === 0) throw new ProblemError('not_found', `There is no operator key ${wanted}.`)
  if (found.length > 1)
    throw new ProblemError(
      'validation_error',
      `${wanted} names ${found.length} operator keys (${found.map((k) => k.key_id).join(', ')}): give its id.`,
    )
  const key = found[0]!
  if (key.revoked_at !== null)
    throw new ProblemError('validation_error', `Operator key ${key.prefix} was revoked already, at ${key.revoked_at}.`)
  const at = ports.clock.now().toISOString()
  await ports.store.revokeOperatorKey(key.key_id, at)
  return { ...listed(key), revoked_at: at }
}

const WHAT_TO_SEND = 'Send an operator key as "Authorization: Bearer svc_op_…" (npm run operator -- create).'

/**
 * The operator an admin request's Authorization header names: `Bearer <operator key>` exactly. Anything else
 * is 401, a seller's API key (Basic) and its trip tokens (Bearer JWTs) included, so a seller's credential
 * never reaches the admin API, as an operator key never reaches the public one (it is no JWT there).
 */
export async function authenticateOperator(ports: Ports, authorization: string | undefined): Promise<Operator> {
  if (!authorization) throw new ProblemError('unauthorized', `Credentials are required. ${WHAT_TO_SEND}`)
  const parts = authorization.trim().split(/\s+/)
  const [scheme, key = ''] = parts
  if (parts.length !== 2 || !/^bearer$/i.test(scheme ?? '') || !key.startsWith(OPERATOR_KEY_PREFIX))
    throw new ProblemError('unauthorized', `The admin API takes operator keys only. ${WHAT_TO_SEND}`)
  const record = await ports.store.findOperatorKey(sha256Hex(key))
  if (!record || record.revoked_at !== null)
    throw new ProblemError('unauthorized', 'The operator key is not valid (unknown, or revoked).')
  return { key_id: record.key_id, name: record.name, seller_id: record.seller_id, read_only: record.read_only }
}
