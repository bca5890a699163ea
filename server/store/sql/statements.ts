/**
 * The statements both SQL stores run as they are, written once in PostgreSQL's form and compiled for a
 * dialect (server/store/sql/dialect.ts). Column lists follow the `…Row` builders of rows.ts.
 * What a dialect does its own way (trip writes with their effects, job claims, refresh-token rotation,
 * the orders feed, retention) is written in its store.
 */
import type { Dialect } from './dialect.ts'

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
    // An earlier expiry stays: a rotation never lengthens a key's life (nor undoes a revocation).
    expireApiKeys: s(
      'expireApiKeys',
      `UPDATE api_keys SET expires_at = $3 WHERE seller_id = $1 AND key_hash ${d.in(2)}
      AND (expires_at IS NULL OR expires_at > $3)`,
    ),
    // Only keys that still work at $3: an expired key stays expired, a revoked one keeps its revocation.
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

    getSearch: s('getSearch', 'SELECT * FROM searches WHERE search_id = $1'),
    getSeatMaps: s('getSeatMaps', `SELECT doc FROM seat_maps WHERE key ${d.in(1)}`),

    insertRefreshToken: s(
      'insertRefreshToken',
      `INSERT INTO refresh_tokens
      (token_hash, family_id, trip_id, seller_id, expires_at, used_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    ),
    getRefreshToken: s('getRefreshToken', 'SELECT * FROM refresh_tokens WHERE token_hash = $1'),
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
    // (the WHERE sees the stored row; the count is the insert's or the takeover's). Concurrent takeovers
    // queue on the row lock and each re-checks the WHERE against the row the one before it wrote, so
    // exactly one wins (its fresh lease has not lapsed).
    takeOverIdempotency: s(
      'reserveIdempotency2',
      `INSERT INTO idempotency_keys (scope, key, request_hash, response, created_at, owner, lease_until)
      VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,
        response = excluded.response, created_at = excluded.created_at, owner = excluded.owner, lease_until = excluded.lease_until
      WHERE idempotency_keys.response IS NULL AND idempotency_keys.lease_until < $8::timestamptz`,
    ),
    getIdempotency: s('reserveIdempotency3', 'SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2'),
    renewIdempotency: s(
      'renewIdempotency',
      `UPDATE idempotency_keys SET lease_until = $4
      WHERE scope = $1 AND key = $2 AND owner = $3 AND response IS NULL`,
    ),
    completeIdempotency: s(
      'completeIdempotency',
      `UPDATE idempotency_keys SET response = $4
      WHERE scope = $1 AND key = $2 AND owner = $3 AND response IS NULL`,
    ),
    releaseIdempotency: s(
      'releaseIdempotency',
      'DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND owner = $3 AND response IS NULL',
    ),

    insertJob: s(
      'enqueueJob',
      `INSERT INTO jobs (job_id, kind, payload, run_at, attempts, max_attempts, locked_until, last_error, status, created_at, lane)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    ),
    // Both only touch the job while it is pending and still holds the caller's lease: a worker whose lease
    // lapsed and whose job was claimed again (a later locked_until) changes nothing. On PostgreSQL a
    // concurrent re-claim holds the row lock; the UPDATE then re-checks locked_until against the row it committed.
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
  }
}
export type Statements = ReturnType<typeof statements>
