/**
 * The statements both SQL stores run as they are, written once in PostgreSQL's form and compiled for a
 * dialect (server/store/sql/dialect.ts). Column lists follow the `…Row` builders of rows.ts. A trip write
 * and what it brings along are in ./trip-writes.ts, retention's batches in ./retention.ts. Where a
 * statement decides which rows it reads or changes by a rule of the store contract, it names the rule of
 * core/adapters/store-rules.ts it mirrors (the memory store runs that rule).
 *
 * What stays in a store is a shape the other dialect cannot take: SQLite reads a kept trip's version with
 * one cached statement per trip inside one read transaction, PostgreSQL all of them in one round trip
 * (`unnest`); PostgreSQL's rate-limit counters and its trip notifications have no SQLite counterpart.
 */
import type { OrderFeedQuery } from '../../../core/ports/records.ts'
import type { Dialect, Statement } from './dialect.ts'
import { held, insertEvents, insertRow, JOBS, REFRESH_TOKENS } from './trip-writes.ts'

export function statements(d: Dialect) {
  const s = (name: string, text: string) => d.statement(name, text)
  return {
    ping: s('ping', 'SELECT 1'),

    createSeller: s(
      'createSeller',
      `INSERT INTO sellers (seller_id, name, origins, sandbox, created_at, supplier, supplier_credentials,
      trip_tokens_after, disabled_at, kept_credentials) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    ),
    getSeller: s('getSeller', 'SELECT * FROM sellers WHERE seller_id = $1'),
    listSellers: s('listSellers', 'SELECT * FROM sellers ORDER BY created_at, seller_id'),
    // What a change leaves out stays: NULL keeps the column (the supplier's name says whether the supplier changes).
    // The columns a change may empty (disabled_at, kept_credentials) say whether they change with a flag ($6, $8).
    updateSeller: s(
      'updateSeller',
      `UPDATE sellers SET origins = coalesce($2::jsonb, origins), supplier = coalesce($3::text, supplier),
      supplier_credentials = CASE WHEN $3::text IS NULL THEN supplier_credentials ELSE $4::text END,
      trip_tokens_after = coalesce($5::timestamptz, trip_tokens_after),
      disabled_at = CASE WHEN $6::boolean THEN $7::timestamptz ELSE disabled_at END,
      kept_credentials = CASE WHEN $8::boolean THEN $9::text ELSE kept_credentials END WHERE seller_id = $1`,
    ),
    addApiKey: s(
      'addApiKey',
      'INSERT INTO api_keys (key_hash, seller_id, prefix, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)',
    ),
    findApiKey: s(
      'findApiKey',
      'SELECT key_hash, seller_id, prefix, created_at, expires_at, revoked_at FROM api_keys WHERE key_hash = $1',
    ),
    listApiKeys: s(
      'listApiKeys',
      `SELECT key_hash, seller_id, prefix, created_at, expires_at, revoked_at FROM api_keys WHERE seller_id = $1
      ORDER BY created_at, key_hash`,
    ),
    // Only keys that still work at $3 (store-rules.ts keyWorksAt): an earlier expiry stays, a rotation never
    // lengthens a key's life (nor undoes a revocation).
    expireApiKeys: s(
      'expireApiKeys',
      `UPDATE api_keys SET expires_at = $3 WHERE seller_id = $1 AND key_hash ${d.in(2)}
      AND (expires_at IS NULL OR expires_at > $3)`,
    ),
    // Only keys that still work at $3 (store-rules.ts keyWorksAt): an expired key stays expired, a revoked one
    // keeps its revocation.
    revokeApiKeys: s(
      'revokeApiKeys',
      `UPDATE api_keys SET expires_at = $3, revoked_at = $3 WHERE seller_id = $1 AND key_hash ${d.in(2)}
      AND (expires_at IS NULL OR expires_at > $3)`,
    ),
    // trips_seller_trip (migration 11) answers it: one seller's rows, in id order, from where the last page ended.
    listSellerTrips: s(
      'listSellerTrips',
      'SELECT doc, search_id FROM trips WHERE seller_id = $1 AND trip_id > $2 ORDER BY trip_id LIMIT $3',
    ),

    listSigningKeys: s('listSigningKeys', 'SELECT * FROM signing_keys ORDER BY created_at, kid'),
    addSigningKey: s(
      'addSigningKey',
      `INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at, retire_at)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (kid) DO NOTHING`,
    ),
    updateSigningKey: s(
      'updateSigningKey',
      `UPDATE signing_keys SET retire_at = coalesce($2::timestamptz, retire_at),
      private_jwk = coalesce($3::jsonb, private_jwk) WHERE kid = $1`,
    ),

    getTrip: s('getTrip', 'SELECT doc, version, search_id FROM trips WHERE trip_id = $1'),
    getSearch: s('getSearch', 'SELECT * FROM searches WHERE search_id = $1'),
    getSeatMaps: s('getSeatMaps', `SELECT doc FROM seat_maps WHERE key ${d.in(1)}`),

    insertRefreshToken: s('insertRefreshToken', insertRow(REFRESH_TOKENS)),
    getRefreshToken: s('getRefreshToken', 'SELECT * FROM refresh_tokens WHERE token_hash = $1'),
    // One statement decides the winner (store-rules.ts refreshRefusal is null): a concurrent consumer waits
    // on the row lock (SQLite: the write lock), then finds used_at set and changes nothing.
    consumeRefreshToken: s(
      'consumeRefreshToken',
      `UPDATE refresh_tokens SET used_at = $2
      WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2::timestamptz RETURNING *`,
    ),
    revokeRefreshFamily: s(
      'revokeRefreshFamily',
      'UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL',
    ),
    revokeSellerRefreshTokens: s(
      'revokeSellerRefreshTokens',
      'UPDATE refresh_tokens SET revoked_at = $1 WHERE seller_id = $2 AND revoked_at IS NULL AND used_at IS NULL',
    ),

    reserveIdempotency: s(
      'reserveIdempotency',
      `INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at, owner, lease_until)
      VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, key) DO NOTHING`,
    ),
    // With now ($8): inserts, or takes over a reservation whose lease lapsed before now without a response
    // (store-rules.ts lapsed; the WHERE sees the stored row; the count is the insert's or the takeover's).
    // Concurrent takeovers queue on the row lock and each re-checks the WHERE against the row the one before
    // it wrote, so exactly one wins (its fresh lease has not lapsed).
    takeOverIdempotency: s(
      'reserveIdempotency2',
      `INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at, owner, lease_until)
      VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
        response = excluded.response, created_at = excluded.created_at, owner = excluded.owner, lease_until = excluded.lease_until
      WHERE idempotency_keys.response IS NULL AND idempotency_keys.lease_until < $8::timestamptz`,
    ),
    getIdempotency: s('reserveIdempotency3', 'SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2'),
    // The key's owner ($3) still holds it without a response (store-rules.ts heldBy).
    renewIdempotency: s(
      'renewIdempotency',
      `UPDATE idempotency_keys SET lease_until = $4 WHERE ${held('', '$1', '$2', '$3')}`,
    ),
    completeIdempotency: s(
      'completeIdempotency',
      `UPDATE idempotency_keys SET response = $4 WHERE ${held('', '$1', '$2', '$3')}`,
    ),
    releaseIdempotency: s('releaseIdempotency', `DELETE FROM idempotency_keys WHERE ${held('', '$1', '$2', '$3')}`),

    insertJob: s('enqueueJob', insertRow(JOBS)),
    // A due job ($1 now) of the kinds asked for ($3), leased until $2 (store-rules.ts jobToClaim): one
    // statement, atomic. On PostgreSQL, SKIP LOCKED: concurrent claimers pass over a row another one is
    // taking instead of waiting for it, and a row that changed meanwhile is re-checked against the WHERE
    // clause before it is locked.
    claimJob: s(
      'claimJob',
      `UPDATE jobs SET locked_until = $2, attempts = attempts + 1
      WHERE job_id = (
        SELECT job_id FROM jobs
        WHERE status = 'pending' AND run_at <= $1::timestamptz AND (locked_until IS NULL OR locked_until <= $1::timestamptz)
          AND kind ${d.in(3)}
        ORDER BY run_at, job_id LIMIT 1 ${d.lock()})
      RETURNING *`,
    ),
    // Fair between lanes ($4 leases at most a lane): how many live leases each lane holds (jobs_lane
    // answers it), the least busy lane first.
    claimJobFair: s(
      'claimJobFair',
      `UPDATE jobs SET locked_until = $2, attempts = attempts + 1
      WHERE job_id = (
        SELECT j.job_id FROM jobs j
        LEFT JOIN (
          SELECT lane, count(*) AS n FROM jobs
          WHERE status = 'pending' AND lane IS NOT NULL AND locked_until > $1::timestamptz GROUP BY lane
        ) busy ON busy.lane = j.lane
        WHERE j.status = 'pending' AND j.run_at <= $1::timestamptz
          AND (j.locked_until IS NULL OR j.locked_until <= $1::timestamptz)
          AND j.kind ${d.in(3)} AND coalesce(busy.n, 0) < $4
        ORDER BY coalesce(busy.n, 0), j.run_at, j.job_id LIMIT 1 ${d.lock('j')})
      RETURNING *`,
    ),
    // Each only touches the job while it is pending and still holds the caller's lease (store-rules.ts
    // holdsLease): a worker whose lease lapsed and whose job was claimed again (a later locked_until) changes
    // nothing. On PostgreSQL a concurrent re-claim holds the row lock; the UPDATE then re-checks locked_until
    // against the row it committed.
    completeJob: s(
      'completeJob',
      `UPDATE jobs SET status = 'done', locked_until = NULL
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`,
    ),
    failJob: s(
      'failJob',
      `UPDATE jobs SET status = $3, last_error = $4, locked_until = NULL, run_at = coalesce($5::timestamptz, run_at)
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`,
    ),
    renewJob: s(
      'renewJob',
      `UPDATE jobs SET locked_until = $3::timestamptz
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`,
    ),
    deferJob: s(
      'deferJob',
      `UPDATE jobs SET last_error = $3, locked_until = NULL, run_at = $4::timestamptz, attempts = attempts - 1
      WHERE job_id = $1 AND status = 'pending' AND locked_until = $2::timestamptz`,
    ),
    getJob: s('getJob', 'SELECT * FROM jobs WHERE job_id = $1'),
    listJobs: s('listJobs', `SELECT * FROM jobs WHERE kind ${d.in(1)} ORDER BY created_at, job_id`),
    // The partial index of pending jobs (jobs_due) answers the WHERE; finished jobs are never read.
    countPendingJobs: s(
      'countPendingJobs',
      `SELECT kind, count(*)::int AS n FROM jobs WHERE status = 'pending' GROUP BY kind`,
    ),

    addSubscription: s(
      'addSubscription',
      `INSERT INTO subscriptions (subscription_id, seller_id, event_name, delivery_method, target, secret, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    ),
    listSubscriptions: s(
      'listSubscriptions',
      'SELECT * FROM subscriptions WHERE seller_id = $1 ORDER BY created_at, subscription_id',
    ),
    deleteSubscription: s(
      'deleteSubscription',
      'DELETE FROM subscriptions WHERE seller_id = $1 AND subscription_id = $2',
    ),

    listOrders: ordersFeed(d),

    addOperatorKey: s(
      'addOperatorKey',
      `INSERT INTO operator_keys (key_id, key_hash, name, prefix, seller_id, read_only, created_at, revoked_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    ),
    findOperatorKey: s('findOperatorKey', 'SELECT * FROM operator_keys WHERE key_hash = $1'),
    listOperatorKeys: s('listOperatorKeys', 'SELECT * FROM operator_keys ORDER BY created_at, key_id'),
    // Once: a revoked key keeps its first revocation.
    revokeOperatorKey: s(
      'revokeOperatorKey',
      'UPDATE operator_keys SET revoked_at = $2 WHERE key_id = $1 AND revoked_at IS NULL',
    ),
    addConsoleSession: s(
      'addConsoleSession',
      'INSERT INTO console_sessions (session_hash, key_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
    ),
    // The session with the key it acts with: one round trip per console request, and the key's revocation holds.
    findConsoleSession: s(
      'findConsoleSession',
      `SELECT k.*, c.session_hash, c.created_at AS session_created_at, c.expires_at AS session_expires_at
      FROM console_sessions c JOIN operator_keys k ON k.key_id = c.key_id WHERE c.session_hash = $1`,
    ),
    endConsoleSession: s('endConsoleSession', 'DELETE FROM console_sessions WHERE session_hash = $1'),
    // store-rules.ts tripMatches: by trip_id (the primary key, or trips_seller_trip with a seller).
    findTrips: filteredPage(d, 'findTrips', 'SELECT doc, search_id FROM trips', 'trip_id', {
      sellerId: (p) => `seller_id = ${p}`,
      recordLocator: (p) => d.hasRecordLocator('doc', p),
    }),
    // store-rules.ts orderMatches: by order_id (orders_status_order with a status).
    findOrders: filteredPage(d, 'findOrders', 'SELECT seller_id, doc FROM orders', 'order_id', {
      sellerId: (p) => `seller_id = ${p}`,
      status: (p) => `status = ${p}`,
      failureReason: (p) => `${d.field('doc', 'failure_reason')} = ${p}`,
    }),
    // The operator's orders by hour, latest change first: orders_updated answers a seller's, and
    // orders_changed (migration 16) every seller's, each from its index and only as far back as $since.
    listSellerOrderChanges: s(
      'listSellerOrderChanges',
      `SELECT status, updated_at FROM orders WHERE seller_id = $1 AND updated_at >= $2::timestamptz
      ORDER BY updated_at DESC LIMIT $3`,
    ),
    listOrderChanges: s(
      'listOrderChanges',
      'SELECT status, updated_at FROM orders WHERE updated_at >= $1::timestamptz ORDER BY updated_at DESC LIMIT $2',
    ),
    countJobs: s(
      'countJobs',
      'SELECT kind, status, count(*)::int AS n FROM jobs GROUP BY kind, status ORDER BY kind, status',
    ),
    // jobs_dead (migration 12) answers it.
    listDeadJobs: s(
      'listDeadJobs',
      "SELECT * FROM jobs WHERE status = 'dead' AND job_id > $1 ORDER BY job_id LIMIT $2",
    ),
    // A trip's timeline, a page at a time by seq (its primary key), all of it or one kind of entry.
    listTripEvents: s(
      'listTripEvents',
      'SELECT * FROM trip_events WHERE trip_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    ),
    listTripEventsOfKind: s(
      'listTripEventsOfKind',
      'SELECT * FROM trip_events WHERE trip_id = $1 AND seq > $2 AND kind = $4 ORDER BY seq LIMIT $3',
    ),
    // A seller's supplier calls since $2 (trip_events_calls, which holds the calls alone).
    listSupplierCallsSince: s(
      'listSupplierCallsSince',
      `SELECT * FROM trip_events WHERE seller_id = $1 AND kind = 'supplier_call' AND at >= $2::timestamptz
      ORDER BY at, trip_id, seq LIMIT $3`,
    ),
    // Entries no trip write brings (TripEventStore.appendTripEvents): of trips that exist only.
    appendTripEvents: s(
      'appendTripEvents',
      insertEvents(d, 1, '', '', ' WHERE EXISTS (SELECT 1 FROM trips WHERE trips.trip_id = x.trip_id)'),
    ),
    // store-rules.ts retried: one more attempt, unleased, due at $2; a job that is not dead is left as it is.
    retryDeadJob: s(
      'retryDeadJob',
      `UPDATE jobs SET status = 'pending', run_at = $2, locked_until = NULL, max_attempts = attempts + 1
      WHERE job_id = $1 AND status = 'dead'`,
    ),

    addWebhookDelivery: s(
      'addWebhookDelivery',
      `INSERT INTO webhook_deliveries (${DELIVERIES}) VALUES (${params(13)}) ON CONFLICT (delivery_id) DO NOTHING`,
    ),
    // store-rules.ts withAttempt: inserted with its first attempt, or the attempt appended and the state taken.
    recordWebhookAttempt: s(
      'recordWebhookAttempt',
      `INSERT INTO webhook_deliveries (${DELIVERIES}) VALUES (${params(13)}) ON CONFLICT (delivery_id) DO UPDATE
      SET state = excluded.state, updated_at = excluded.updated_at,
      attempts = ${d.appendOne('webhook_deliveries.attempts', 'excluded.attempts')}`,
    ),
    // store-rules.ts deliveryGivenUp.
    giveUpWebhookDelivery: s(
      'giveUpWebhookDelivery',
      `UPDATE webhook_deliveries SET state = 'given_up', updated_at = $2
      WHERE delivery_id = $1 AND state IN ('pending', 'failed')`,
    ),
    getWebhookDelivery: s('getWebhookDelivery', 'SELECT * FROM webhook_deliveries WHERE delivery_id = $1'),
    // store-rules.ts deliveryMatches: by delivery_id (webhook_deliveries_seller with a seller). A trip's
    // deliveries are asked with its seller (core/application/admin.ts findDeliveries) and read through that
    // index, trip_id checked row by row: a seller's rows are bounded by retention (ended ones go after
    // RETENTION_JOB_DAYS) and an operator asks this rarely, so no index on trip_id costs every delivery's write.
    findWebhookDeliveries: filteredPage(d, 'findWebhookDeliveries', 'SELECT * FROM webhook_deliveries', 'delivery_id', {
      sellerId: (p) => `seller_id = ${p}`,
      state: (p) => `state = ${p}`,
      subscriptionId: (p) => `subscription_id = ${p}`,
      tripId: (p) => `trip_id = ${p}`,
    }),
    countWebhookDeliveries: s(
      'countWebhookDeliveries',
      `SELECT subscription_id, state, count(*)::int AS n FROM webhook_deliveries WHERE seller_id = $1
      GROUP BY subscription_id, state ORDER BY subscription_id, state`,
    ),
  }
}

/** webhook_deliveries' columns, in rows.ts deliveryRow's order. */
const DELIVERIES =
  'delivery_id, seller_id, subscription_id, event_id, event_name, trip_id, order_id, resend_of, state, created_at, updated_at, event, attempts'
const params = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ')
export type Statements = ReturnType<typeof statements>

/**
 * A page of a seller's orders feed (store-rules.ts inFeedPage): its orders numbered above `after`, lowest
 * first, filtered by status and updated_at. A statement per combination of filters, each made once; its
 * parameters are ordersFeedParams'.
 */
function ordersFeed(d: Dialect): (q: OrderFeedQuery) => Statement {
  const made = new Map<string, Statement>()
  return (q) => {
    const status = q.status !== undefined
    const since = q.updatedSince !== undefined
    // On the first page, start at the first order changed since then (found in orders_updated) rather than
    // walk the seller's whole history in orders_feed: every order changed since has a number from there.
    const first = since && q.after === 0
    const name = `listOrders${status ? 'S' : ''}${since ? 'U' : ''}${first ? '0' : ''}`
    let statement = made.get(name)
    if (!statement) {
      const where = ['seller_id = $1', 'seq > $2']
      let n = 2
      if (status) where.push(`status = $${++n}`)
      if (since) {
        const at = `$${++n}::timestamptz`
        where.push(`updated_at >= ${at}`)
        if (first)
          where.push(`seq >= (SELECT coalesce(min(seq), 0) FROM orders WHERE seller_id = $1 AND updated_at >= ${at})`)
      }
      statement = d.statement(
        name,
        `SELECT seq, doc FROM orders WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${n + 1}`,
      )
      made.set(name, statement)
    }
    return statement
  }
}

/**
 * A page by `key` of a table filtered by the conditions a query gives (each optional): a statement per
 * combination given, each made once, because one statement testing `$n IS NULL OR …` would be planned once
 * for every combination and use no index. Its parameters: the values given, in the order of `conditions`,
 * then `after` and `limit`.
 */
function filteredPage<K extends string>(
  d: Dialect,
  name: string,
  select: string,
  key: string,
  conditions: Record<K, (param: string) => string>,
): (q: Partial<Record<K, string>> & { after?: string; limit: number }) => { statement: Statement; params: unknown[] } {
  const made = new Map<string, Statement>()
  const names = Object.keys(conditions) as K[]
  return (q) => {
    const given = names.filter((n) => q[n] !== undefined)
    const id = `${name}${given.map((n) => names.indexOf(n)).join('')}`
    let statement = made.get(id)
    if (!statement) {
      const where = given.map((n, i) => conditions[n](`$${i + 1}`))
      where.push(`${key} > $${given.length + 1}`)
      statement = d.statement(id, `${select} WHERE ${where.join(' AND ')} ORDER BY ${key} LIMIT $${given.length + 2}`)
      made.set(id, statement)
    }
    return { statement, params: [...given.map((n) => q[n]), q.after ?? '', q.limit] }
  }
}

/** The parameters of listOrders' statement for this query. */
export function ordersFeedParams(d: Dialect, sellerId: string, q: OrderFeedQuery): unknown[] {
  return [
    sellerId,
    q.after,
    ...(q.status !== undefined ? [q.status] : []),
    ...(q.updatedSince !== undefined ? [d.time(q.updatedSince)] : []),
    q.limit,
  ]
}
