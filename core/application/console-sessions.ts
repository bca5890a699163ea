/**
 * The operator console's sessions (`/console`, served by server/plugins/console.ts): an operator signs in
 * with an operator key once, and the page then acts through a session with that key's limits (its seller,
 * read-only). The key is checked here and forgotten: the session keeps the key's id, and the browser keeps
 * only the session's secret, in an HttpOnly cookie. The store keeps the secret's SHA-256 (as it does keys),
 * so a sign-out or an expiry holds on every instance, and a revoked key ends its sessions at once.
 *
 * Writes need a CSRF token too, sent as a header: it is derived from the secret (a page of another origin
 * can make the browser send the cookie, SameSite aside, but cannot read the token), so nothing more is kept.
 */
import { ProblemError } from '../shared/errors.ts'
import { safeEqual, sha256Hex } from '../shared/crypto.ts'
import type { Ports } from './dependencies.ts'
import { authenticateOperator, type Operator } from './operators.ts'

/** How long a session lasts from sign-in, whatever is done with it: a working day. */
export const CONSOLE_SESSION_MS = 8 * 3600_000

export interface ConsoleSession {
  operator: Operator
  /** The header value every write must carry. */
  csrf_token: string
  expires_at: string
}

/** The CSRF token of a session: a hash of its secret, under a label no other use of the secret has. */
const csrfOf = (secret: string) => sha256Hex(`svc-console-csrf:${secret}`)

/**
 * Signs in with an operator key (a seller's key, a trip token or anything else is 401, as on the admin API):
 * a new session, its secret (for the cookie only) and what the page may know of it.
 */
export async function openConsoleSession(
  ports: Ports,
  operatorKey: string,
): Promise<{ secret: string; session: ConsoleSession }> {
  const operator = await authenticateOperator(ports, `Bearer ${operatorKey}`)
  const now = ports.clock.now()
  const secret = ports.ids.secret(32)
  const expires_at = new Date(now.getTime() + CONSOLE_SESSION_MS).toISOString()
  await ports.store.addConsoleSession({
    session_hash: sha256Hex(secret),
    key_id: operator.key_id,
    created_at: now.toISOString(),
    expires_at,
  })
  return { secret, session: { operator, csrf_token: csrfOf(secret), expires_at } }
}

const SIGN_IN = 'Sign in to the console again with an operator key.'

/** The session a cookie's secret names: 401 when there is none, it expired, or its key was revoked. */
export async function consoleSession(ports: Ports, secret: string | undefined): Promise<ConsoleSession> {
  if (!secret) throw new ProblemError('unauthorized', `No console session. ${SIGN_IN}`)
  const found = await ports.store.findConsoleSession(sha256Hex(secret))
  if (!found || found.session.expires_at <= ports.clock.now().toISOString())
    throw new ProblemError('unauthorized', `The console session has ended. ${SIGN_IN}`)
  const k = found.key
  if (k.revoked_at !== null) throw new ProblemError('unauthorized', `The operator key was revoked. ${SIGN_IN}`)
  return {
    operator: { key_id: k.key_id, name: k.name, seller_id: k.seller_id, read_only: k.read_only },
    csrf_token: csrfOf(secret),
    expires_at: found.session.expires_at,
  }
}

/** A write through a session: 403 unless it carries the session's CSRF token. */
export function assertCsrf(session: ConsoleSession, header: string | undefined): void {
  if (!header || !safeEqual(header, session.csrf_token))
    throw new ProblemError(
      'forbidden',
      'A change through the console needs its CSRF token in the X-CSRF-Token header (GET /console/session gives it).',
    )
}

/** Signs out: the session is refused from now on, on every instance. */
export async function closeConsoleSession(ports: Ports, secret: string | undefined): Promise<void> {
  if (secret) await ports.store.endConsoleSession(sha256Hex(secret))
}
