/**
 * Versioned schema migrations, a SQL script per dialect. Append new entries; never change what an applied
 * one does, because `migrate()` records each version in `schema_migrations` and will not run it again.
 *
 * A migration is written once (`writtenOnce`) where the two dialects differ only in what dialect.ts gives:
 * column types (`d.type`) and the other fragments a statement takes. Only one whose SQL really differs
 * (what each does with JSON inside a document: 3 and 6) or that one dialect alone needs (`postgresOnly`)
 * is written twice or once for its dialect. Migration 1 stays exactly as databases in the field ran it
 * (its text is pinned by a test); the others written once since gave each dialect the schema its two
 * scripts gave (checked: every table's columns, types, defaults, keys and indexes, from an empty database
 * and from one at migration 1, on both dialects).
 *
 * Timestamps: SQLite keeps them as canonical ISO-8601 text (`Date.prototype.toISOString`), which sorts
 * chronologically as text; PostgreSQL uses timestamptz. Both stores only ever write times they were given.
 */
import { postgres, sqlite, type Dialect } from './sql/dialect.ts'

export interface Migration {
  version: number
  name: string
  sqlite: string
  postgres: string
}

/** A migration written once, for each dialect (`d.type` for column types). */
const writtenOnce = (version: number, name: string, sql: (d: Dialect) => string): Migration => ({
  version,
  name,
  sqlite: sql(sqlite),
  postgres: sql(postgres),
})

/** A migration only PostgreSQL needs (SQLite records it, running nothing). */
const postgresOnly = (version: number, name: string, sql: string): Migration => ({
  version,
  name,
  sqlite: 'SELECT 1;',
  postgres: sql,
})

/** Migration 14's table, the same on both dialects. */
const tripEventsTable = ({ type: t }: Dialect, seq: string, options: string) => `
  CREATE TABLE trip_events (
    trip_id   ${t.text} NOT NULL,
    seq       ${seq},
    seller_id ${t.text} NOT NULL,
    at        ${t.time} NOT NULL,
    kind      ${t.text} NOT NULL,
    detail    ${t.doc} NOT NULL,
    PRIMARY KEY (trip_id, seq)
  )${options};
  CREATE INDEX trip_events_calls ON trip_events (seller_id, at) WHERE kind = 'supplier_call';
`

/**
 * SQLite numbers a trip's entries itself, on from the trip's last (an INSERT … SELECT that reads its own
 * table computes every row before it inserts one, so the entries of one statement count on from one figure;
 * and SQLite has one writer, so two writes of one trip never count at once).
 */
export const nextTripSeq = (trip: string): string =>
  `(SELECT coalesce(max(seq), 0) FROM trip_events WHERE trip_id = ${trip})`

/**
 * SQLite: a trip write carries its timeline entries in the row it writes, `pending_events`
 * (sql/trip-writes.ts pendingEvents: `{"events": [{at, kind, detail}, …], "keep": n}`, `keep` only when
 * supplier calls are among them), and these triggers append them to trip_events as part of that very
 * statement. So a basket change is one UPDATE again, atomic with its entry without BEGIN and COMMIT around
 * a second statement (which cost PUT basket about a quarter of its throughput). Only a write that names
 * the column fires them (UPDATE OF): one without entries leaves it out, and the row keeps the last small
 * array it was given. With calls, the trip's calls but the latest `keep` go after the new ones are in.
 * The two UPDATE triggers' WHEN clauses exclude each other, so which fires first never matters.
 */
const appendPending = `INSERT INTO trip_events (trip_id, seq, seller_id, at, kind, detail)
      SELECT new.trip_id, ${nextTripSeq('new.trip_id')} + key + 1, new.seller_id, json_extract(value, '$.at'),
        json_extract(value, '$.kind'), json_extract(value, '$.detail')
      FROM json_each(new.pending_events, '$.events') ORDER BY key;`
const tripEventTriggers = `
  ALTER TABLE trips ADD COLUMN pending_events TEXT;
  CREATE TRIGGER trips_pending_events_insert AFTER INSERT ON trips
    WHEN new.pending_events IS NOT NULL
    BEGIN
      ${appendPending}
    END;
  CREATE TRIGGER trips_pending_events_update AFTER UPDATE OF pending_events ON trips
    WHEN new.pending_events IS NOT NULL AND json_extract(new.pending_events, '$.keep') IS NULL
    BEGIN
      ${appendPending}
    END;
  CREATE TRIGGER trips_pending_calls_update AFTER UPDATE OF pending_events ON trips
    WHEN json_extract(new.pending_events, '$.keep') IS NOT NULL
    BEGIN
      ${appendPending}
      DELETE FROM trip_events WHERE trip_id = new.trip_id AND kind = 'supplier_call' AND seq <= (
        SELECT seq FROM trip_events WHERE trip_id = new.trip_id AND kind = 'supplier_call'
        ORDER BY seq DESC LIMIT 1 OFFSET json_extract(new.pending_events, '$.keep'));
    END;
`

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sqlite: `
      CREATE TABLE sellers (
        seller_id  TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        origins    TEXT NOT NULL,             -- JSON array
        sandbox    INTEGER NOT NULL CHECK (sandbox IN (0, 1)),
        created_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        key_hash   TEXT PRIMARY KEY,
        seller_id  TEXT NOT NULL REFERENCES sellers (seller_id),
        prefix     TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX api_keys_seller ON api_keys (seller_id);
      CREATE TABLE signing_keys (
        kid         TEXT PRIMARY KEY,
        alg         TEXT NOT NULL,
        private_jwk TEXT NOT NULL,            -- JSON
        public_jwk  TEXT NOT NULL,            -- JSON
        created_at  TEXT NOT NULL,
        retire_at   TEXT
      );
      CREATE TABLE trips (
        trip_id    TEXT PRIMARY KEY,
        seller_id  TEXT NOT NULL REFERENCES sellers (seller_id),
        version    INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        doc        TEXT NOT NULL              -- the TripRecord as JSON
      );
      CREATE INDEX trips_seller ON trips (seller_id, updated_at);
      CREATE TABLE searches (
        search_id  TEXT PRIMARY KEY,
        trip_id    TEXT NOT NULL REFERENCES trips (trip_id),
        status     TEXT NOT NULL,
        results    TEXT NOT NULL,             -- JSON
        offer_keys TEXT NOT NULL,             -- JSON
        created_at TEXT NOT NULL
      );
      CREATE INDEX searches_trip ON searches (trip_id);
      CREATE TABLE refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id  TEXT NOT NULL,
        trip_id    TEXT NOT NULL REFERENCES trips (trip_id),
        seller_id  TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at    TEXT,
        revoked_at TEXT
      );
      CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
      CREATE TABLE idempotency_keys (
        scope        TEXT NOT NULL,
        key          TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        response     TEXT,                    -- JSON; NULL while the first request runs
        created_at   TEXT NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE TABLE jobs (
        job_id       TEXT PRIMARY KEY,
        kind         TEXT NOT NULL,
        payload      TEXT NOT NULL,           -- JSON
        run_at       TEXT NOT NULL,
        attempts     INTEGER NOT NULL,
        max_attempts INTEGER NOT NULL,
        locked_until TEXT,
        last_error   TEXT,
        status       TEXT NOT NULL CHECK (status IN ('pending', 'done', 'dead')),
        created_at   TEXT NOT NULL
      );
      -- Claiming only ever looks at pending jobs, which are few next to the done ones.
      CREATE INDEX jobs_due ON jobs (run_at, job_id) WHERE status = 'pending';
    `,
    postgres: `
      CREATE TABLE sellers (
        seller_id  text PRIMARY KEY,
        name       text NOT NULL,
        origins    jsonb NOT NULL,
        sandbox    boolean NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE TABLE api_keys (
        key_hash   text PRIMARY KEY,
        seller_id  text NOT NULL REFERENCES sellers (seller_id),
        prefix     text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX api_keys_seller ON api_keys (seller_id);
      CREATE TABLE signing_keys (
        kid         text PRIMARY KEY,
        alg         text NOT NULL,
        private_jwk jsonb NOT NULL,
        public_jwk  jsonb NOT NULL,
        created_at  timestamptz NOT NULL,
        retire_at   timestamptz
      );
      CREATE TABLE trips (
        trip_id    text PRIMARY KEY,
        seller_id  text NOT NULL REFERENCES sellers (seller_id),
        version    integer NOT NULL,
        updated_at timestamptz NOT NULL,
        doc        jsonb NOT NULL
      );
      CREATE INDEX trips_seller ON trips (seller_id, updated_at);
      CREATE TABLE searches (
        search_id  text PRIMARY KEY,
        trip_id    text NOT NULL REFERENCES trips (trip_id),
        status     text NOT NULL,
        results    jsonb NOT NULL,
        offer_keys jsonb NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX searches_trip ON searches (trip_id);
      CREATE TABLE refresh_tokens (
        token_hash text PRIMARY KEY,
        family_id  text NOT NULL,
        trip_id    text NOT NULL REFERENCES trips (trip_id),
        seller_id  text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at    timestamptz,
        revoked_at timestamptz
      );
      CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
      CREATE TABLE idempotency_keys (
        scope        text NOT NULL,
        key          text NOT NULL,
        request_hash text NOT NULL,
        response     jsonb,
        created_at   timestamptz NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE TABLE jobs (
        job_id       text PRIMARY KEY,
        kind         text NOT NULL,
        payload      jsonb NOT NULL,
        run_at       timestamptz NOT NULL,
        attempts     integer NOT NULL,
        max_attempts integer NOT NULL,
        locked_until timestamptz,
        last_error   text,
        status       text NOT NULL CHECK (status IN ('pending', 'done', 'dead')),
        created_at   timestamptz NOT NULL
      );
      -- Claiming only ever looks at pending jobs, which are few next to the done ones.
      CREATE INDEX jobs_due ON jobs (run_at, job_id) WHERE status = 'pending';
    `,
  },
  // delivery_method has no CHECK: SQLite cannot change one without rebuilding the table, and the core
  // validates it anyway. The index serves listing a seller's subscriptions oldest first.
  writtenOnce(
    2,
    'webhook subscriptions',
    ({ type: t }) => `
      CREATE TABLE subscriptions (
        subscription_id ${t.text} PRIMARY KEY,
        seller_id       ${t.text} NOT NULL REFERENCES sellers (seller_id),
        event_name      ${t.text} NOT NULL,
        delivery_method ${t.text} NOT NULL,
        target          ${t.text} NOT NULL,
        secret          ${t.text} NOT NULL,
        created_at      ${t.time} NOT NULL
      );
      CREATE INDEX subscriptions_seller ON subscriptions (seller_id, created_at, subscription_id);
    `,
  ),
  {
    version: 3,
    name: 'compact searches, shared seat maps, trip columns for retention',
    // Searches move to the compact form (core/domain/search.ts): the full ones before it cannot be read any more
    // and are dropped, so their trips have no search (search_id NULL) and a client starts a new one.
    // trips.search_id is the trip's current search (the document no longer holds it); trips.open is false
    // once fulfilled; trips.created_at dates it. They serve the retention job (server/store/*.ts purge).
    // No index on trips names a column a change writes (trips_seller named updated_at): a basket change
    // then updates the row alone, 40 % less work per write on SQLite, and a HOT update on PostgreSQL.
    sqlite: `
      DROP TABLE searches;
      CREATE TABLE searches (
        search_id  TEXT PRIMARY KEY,
        trip_id    TEXT NOT NULL REFERENCES trips (trip_id),
        status     TEXT NOT NULL,
        created_at TEXT NOT NULL,
        offers     TEXT NOT NULL              -- JSON, StoredOffers
      );
      CREATE INDEX searches_trip ON searches (trip_id);
      CREATE INDEX searches_created ON searches (created_at);
      CREATE TABLE seat_maps (
        key        TEXT PRIMARY KEY,
        doc        TEXT NOT NULL,             -- JSON, SupplierSeatMap
        used_at    TEXT NOT NULL              -- refreshed at most hourly while searches use it
      );
      DROP INDEX trips_seller;
      ALTER TABLE trips ADD COLUMN search_id TEXT;
      ALTER TABLE trips ADD COLUMN open INTEGER NOT NULL DEFAULT 1 CHECK (open IN (0, 1));
      ALTER TABLE trips ADD COLUMN created_at TEXT NOT NULL DEFAULT '';
      UPDATE trips SET open = 0 WHERE json_extract(doc, '$.fulfillments') <> '{}';
      UPDATE trips SET created_at = json_extract(doc, '$.created_at');
      CREATE INDEX trips_created ON trips (created_at);
      CREATE INDEX refresh_tokens_expires ON refresh_tokens (expires_at);
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
      CREATE INDEX jobs_finished ON jobs (created_at) WHERE status <> 'pending';
    `,
    postgres: `
      DROP TABLE searches;
      CREATE TABLE searches (
        search_id  text PRIMARY KEY,
        trip_id    text NOT NULL REFERENCES trips (trip_id),
        status     text NOT NULL,
        created_at timestamptz NOT NULL,
        offers     json NOT NULL
      );
      CREATE INDEX searches_trip ON searches (trip_id);
      CREATE INDEX searches_created ON searches (created_at);
      CREATE TABLE seat_maps (
        key        text PRIMARY KEY,
        doc        json NOT NULL,
        used_at    timestamptz NOT NULL
      );
      DROP INDEX trips_seller;
      ALTER TABLE trips ADD COLUMN search_id text;
      ALTER TABLE trips ADD COLUMN open boolean NOT NULL DEFAULT true;
      ALTER TABLE trips ADD COLUMN created_at timestamptz;
      UPDATE trips SET open = false WHERE doc->'fulfillments' <> '{}'::jsonb;
      UPDATE trips SET created_at = (doc->>'created_at')::timestamptz;
      ALTER TABLE trips ALTER COLUMN created_at SET NOT NULL;
      CREATE INDEX trips_created ON trips (created_at);
      -- Documents are written and read whole, never queried inside: json keeps them as text, where jsonb
      -- parsed every write and rebuilt every read (measured: a trip update 290 → 140 µs, a read 170 → 100 µs).
      ALTER TABLE trips ALTER COLUMN doc TYPE json USING doc::json;
      -- Room on each page for a changed row's new version beside the old (a HOT update).
      ALTER TABLE trips SET (fillfactor = 80);
      CREATE INDEX refresh_tokens_expires ON refresh_tokens (expires_at);
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
      CREATE INDEX jobs_finished ON jobs (created_at) WHERE status <> 'pending';
    `,
  },
  // One SQLite file serves one machine: its instance counts in memory. On PostgreSQL every instance counts
  // in this table, so N instances allow the limit once, not N times. UNLOGGED: counters are worth no WAL
  // write, and a crash that empties them only forgives a window.
  postgresOnly(
    4,
    'rate-limit counters shared by every instance (PostgreSQL)',
    `
      CREATE UNLOGGED TABLE rate_limits (
        key      text PRIMARY KEY,
        count    integer NOT NULL,
        reset_at timestamptz NOT NULL
      );
      CREATE INDEX rate_limits_reset ON rate_limits (reset_at);
    `,
  ),
  // A trigger rather than a NOTIFY in each statement: every write of a trip's version is announced,
  // whichever statement makes it. Delivered at commit, so a listener that reads the trip sees the change.
  // SQLite has no notifications: its instances check the versions of the trips they stream.
  postgresOnly(
    5,
    'a notification per trip change, for the event streams of every instance (PostgreSQL)',
    `
      CREATE FUNCTION svc_trip_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('svc_trip_changed', NEW.trip_id);
        RETURN NULL;
      END $$;
      CREATE TRIGGER trips_changed AFTER UPDATE OF version ON trips
        FOR EACH ROW WHEN (OLD.version IS DISTINCT FROM NEW.version) EXECUTE FUNCTION svc_trip_changed();
    `,
  ),
  {
    version: 6,
    name: 'the orders feed: one row per order beside its trip, numbered per seller by change',
    // core/domain/order-feed.ts says why a change number rather than updated_at orders the feed. order_feeds holds each
    // seller's last number: a write that moves orders adds to it (its row stays locked until the write
    // commits, so numbers follow commit order) and numbers its orders below the new value. A counter rather
    // than max(seq) + 1, which two PostgreSQL writers would both read alike, and which would hand out again
    // a number a deleted row had. orders.doc is the order as the feed shows it; its columns are what the
    // feed is filtered and paged by: (seller_id, seq) pages, (seller_id, status, seq) pages a status,
    // (seller_id, updated_at, seq) finds where updated_since starts, (trip_id) goes with the trip.
    // Orders already in trip documents are numbered per seller by updated_at, then order_id.
    sqlite: `
      CREATE TABLE order_feeds (
        seller_id  TEXT PRIMARY KEY REFERENCES sellers (seller_id),
        seq        INTEGER NOT NULL
      );
      CREATE TABLE orders (
        order_id   TEXT PRIMARY KEY,
        seller_id  TEXT NOT NULL REFERENCES sellers (seller_id),
        trip_id    TEXT NOT NULL REFERENCES trips (trip_id),
        seq        INTEGER NOT NULL,
        status     TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        doc        TEXT NOT NULL              -- JSON, OrderFeedItem
      );
      INSERT INTO orders (order_id, seller_id, trip_id, seq, status, updated_at, doc)
        SELECT o.key, t.seller_id, t.trip_id,
          row_number() OVER (PARTITION BY t.seller_id ORDER BY json_extract(o.value, '$.updated_at'), o.key),
          json_extract(o.value, '$.status'), json_extract(o.value, '$.updated_at'),
          json_patch(json_object(
            'order_id', o.key, 'trip_id', t.trip_id, 'basket_item_id', json_extract(o.value, '$.basket_item_id'),
            'display_name', json_extract(o.value, '$.display_name'),
            'product_type', (SELECT json_extract(b.value, '$.product_type') FROM json_each(t.doc, '$.basket') b
              WHERE b.key = json_extract(o.value, '$.basket_item_id')),
            'price', o.value -> '$.price', 'status', json_extract(o.value, '$.status'),
            'updated_at', json_extract(o.value, '$.updated_at')),
          CASE WHEN json_type(o.value, '$.refund') = 'object' THEN json_object('refund', o.value -> '$.refund') ELSE '{}' END)
        FROM trips t, json_each(t.doc, '$.orders') o;
      INSERT INTO order_feeds (seller_id, seq) SELECT seller_id, max(seq) FROM orders GROUP BY seller_id;
      CREATE UNIQUE INDEX orders_feed ON orders (seller_id, seq);
      CREATE INDEX orders_status ON orders (seller_id, status, seq);
      CREATE INDEX orders_updated ON orders (seller_id, updated_at, seq);
      CREATE INDEX orders_trip ON orders (trip_id);
    `,
    postgres: `
      CREATE TABLE order_feeds (
        seller_id  text PRIMARY KEY REFERENCES sellers (seller_id),
        seq        bigint NOT NULL
      );
      CREATE TABLE orders (
        order_id   text PRIMARY KEY,
        seller_id  text NOT NULL REFERENCES sellers (seller_id),
        trip_id    text NOT NULL REFERENCES trips (trip_id),
        seq        bigint NOT NULL,
        status     text NOT NULL,
        updated_at timestamptz NOT NULL,
        doc        json NOT NULL
      );
      INSERT INTO orders (order_id, seller_id, trip_id, seq, status, updated_at, doc)
        SELECT o.key, t.seller_id, t.trip_id,
          row_number() OVER (PARTITION BY t.seller_id ORDER BY (o.value->>'updated_at')::timestamptz, o.key),
          o.value->>'status', (o.value->>'updated_at')::timestamptz,
          (jsonb_build_object(
            'order_id', o.key, 'trip_id', t.trip_id, 'basket_item_id', o.value->>'basket_item_id',
            'display_name', o.value->>'display_name',
            'product_type', t.doc->'basket'->(o.value->>'basket_item_id')->>'product_type',
            'price', o.value->'price', 'status', o.value->>'status', 'updated_at', o.value->>'updated_at')
          || CASE WHEN json_typeof(o.value->'refund') = 'object' THEN jsonb_build_object('refund', o.value->'refund') ELSE '{}'::jsonb END)::json
        FROM trips t, json_each(t.doc->'orders') o;
      INSERT INTO order_feeds (seller_id, seq) SELECT seller_id, max(seq) FROM orders GROUP BY seller_id;
      CREATE UNIQUE INDEX orders_feed ON orders (seller_id, seq);
      CREATE INDEX orders_status ON orders (seller_id, status, seq);
      CREATE INDEX orders_updated ON orders (seller_id, updated_at, seq);
      CREATE INDEX orders_trip ON orders (trip_id);
    `,
  },
  // A reservation made before this belonged to a process that has since stopped (this runs at start):
  // its lease is long over, so the next request with its key takes it.
  writtenOnce(
    7,
    'an Idempotency-Key reservation has an owner and a lease its request renews',
    ({ type: t }) => `
      ALTER TABLE idempotency_keys ADD COLUMN owner ${t.text} NOT NULL DEFAULT '';
      ALTER TABLE idempotency_keys ADD COLUMN lease_until ${t.time} NOT NULL DEFAULT '1970-01-01T00:00:00.000Z';
    `,
  ),
  // Sellers before this sold the sandbox airline's offers and had no credentials; their keys never expire.
  // supplier_credentials holds the SealedSecret as JSON (core/shared/sealing.ts), never a secret in the clear.
  writtenOnce(
    8,
    'a supplier per seller (its credentials sealed), API keys that expire',
    ({ type: t }) => `
      ALTER TABLE sellers ADD COLUMN supplier ${t.text} NOT NULL DEFAULT 'sandbox';
      ALTER TABLE sellers ADD COLUMN supplier_credentials ${t.text};
      ALTER TABLE api_keys ADD COLUMN expires_at ${t.time};
    `,
  ),
  // A trip's document (~5 KB) is compressed each time it is written, and pglz, the default, cost twice
  // lz4's time: an UPDATE of one was ~50 µs of the database's time with pglz, ~28 µs with lz4 (measured
  // on PostgreSQL 15, docs/performance.md). Values written before keep pglz and read as before. A server
  // older than 14, or built without lz4, keeps pglz: the statement is skipped, not failed.
  postgresOnly(
    9,
    'PostgreSQL: documents compressed with lz4',
    `
      DO $$ BEGIN
        EXECUTE 'ALTER TABLE trips ALTER COLUMN doc SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE searches ALTER COLUMN offers SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE seat_maps ALTER COLUMN doc SET COMPRESSION lz4';
      EXCEPTION WHEN feature_not_supported OR syntax_error THEN NULL;
      END $$;
    `,
  ),
  // `lane`: the seller a supplier search is for; the search lane claims so that no seller holds more
  // than its share of it. `trip_tokens_after`: trip access and refresh tokens issued before it are refused
  // (`npm run seller -- revoke-key --end-trip-tokens`).
  writtenOnce(
    10,
    "a job's lane (whose it is, for fair claims) and a seller's end of trip tokens",
    ({ type: t }) => `
      ALTER TABLE jobs ADD COLUMN lane ${t.text};
      CREATE INDEX jobs_lane ON jobs (lane, locked_until) WHERE status = 'pending' AND lane IS NOT NULL;
      ALTER TABLE sellers ADD COLUMN trip_tokens_after ${t.time};
    `,
  ),
  // `disabled_at`: the seller's keys and trip tokens are refused (403 seller_disabled) while it is set
  // (`npm run seller -- disable`). `kept_credentials`: the sealed credentials (SealedSecret as JSON, by
  // supplier name) of suppliers the seller switched away from. `api_keys.revoked_at`: a revoked key apart
  // from one that expired (keys revoked before this list as expired). `trips_seller_trip` pages a seller's
  // trips (`update --supplier` looks for trips not yet fulfilled); neither column is ever written by a
  // trip update, so a basket change still updates the row alone (see migration 3).
  writtenOnce(
    11,
    "disabled sellers, kept supplier credentials, revoked keys, a seller's trips by id",
    ({ type: t }) => `
      ALTER TABLE sellers ADD COLUMN disabled_at ${t.time};
      ALTER TABLE sellers ADD COLUMN kept_credentials ${t.text};
      ALTER TABLE api_keys ADD COLUMN revoked_at ${t.time};
      CREATE INDEX trips_seller_trip ON trips (seller_id, trip_id);
    `,
  ),
  // The operator's admin API (docs/operations.md): its keys, kept as their SHA-256 like sellers' (never the
  // key), each limited to one seller or to reads when it says so. `orders_status_order` answers "orders in
  // this status" across sellers a page at a time (orders_status starts with the seller); `jobs_dead` lists
  // the dead jobs without reading the finished ones (at most RETENTION's week of them).
  writtenOnce(
    12,
    'operator keys for the admin API, orders by status across sellers, dead jobs',
    ({ type: t }) => `
      CREATE TABLE operator_keys (
        key_id     ${t.text} PRIMARY KEY,
        key_hash   ${t.text} NOT NULL UNIQUE,
        name       ${t.text} NOT NULL,
        prefix     ${t.text} NOT NULL,
        seller_id  ${t.text} REFERENCES sellers (seller_id),
        read_only  ${t.bool} NOT NULL,
        created_at ${t.time} NOT NULL,
        revoked_at ${t.time}
      );
      CREATE INDEX orders_status_order ON orders (status, order_id);
      CREATE INDEX jobs_dead ON jobs (job_id) WHERE status = 'dead';
    `,
  ),
  // Webhook deliveries (core/ports/records.ts WebhookDeliveryRecord): one row per
  // delivery, its attempts a JSON array in the row (at most the job's max attempts, each with at most 1 KB
  // of the receiver's answer), so an attempt and the delivery's state are one upsert. No foreign key to the
  // subscription: a deleted subscription keeps its history. `_seller` answers a seller's pages and counts,
  // `_subscription` the counts per subscription, `_ended` retention's batches without reading live ones.
  writtenOnce(
    13,
    'webhook deliveries and their attempts',
    ({ type: t }) => `
      CREATE TABLE webhook_deliveries (
        delivery_id     ${t.text} PRIMARY KEY,
        seller_id       ${t.text} NOT NULL REFERENCES sellers (seller_id),
        subscription_id ${t.text} NOT NULL,
        event_id        ${t.text} NOT NULL,
        event_name      ${t.text} NOT NULL,
        trip_id         ${t.text},
        order_id        ${t.text},
        resend_of       ${t.text},
        state           ${t.text} NOT NULL,
        created_at      ${t.time} NOT NULL,
        updated_at      ${t.time} NOT NULL,
        event           ${t.doc} NOT NULL,
        attempts        ${t.doc} NOT NULL
      );
      CREATE INDEX webhook_deliveries_seller ON webhook_deliveries (seller_id, delivery_id);
      CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, state);
      CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (created_at) WHERE state IN ('succeeded', 'given_up');
    `,
  ),
  // The operator console's sessions (server/plugins/console.ts): the hash of each session's secret, never the
  // secret or the operator key; deleting an operator key is not a thing (keys are revoked), so the reference holds.
  writtenOnce(
    14,
    'operator console sessions',
    ({ type: t }) => `
      CREATE TABLE console_sessions (
        session_hash ${t.text} PRIMARY KEY,
        key_id       ${t.text} NOT NULL REFERENCES operator_keys (key_id),
        created_at   ${t.time} NOT NULL,
        expires_at   ${t.time} NOT NULL
      );
      CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
    `,
  ),
  // A trip's timeline (core/domain/trip-events.ts): appended by the writes it records, deleted with its trip
  // (retention). Kept in order by its key (trip_id, seq), which one trip's are read by, so an append updates
  // one B-tree besides the calls' index: SQLite's table is that key itself (WITHOUT ROWID), numbering each
  // trip's entries from 1 (nextTripSeq); PostgreSQL's heap has the key as its one index, `seq` from one
  // identity for all. A key on `seq` alone beside an index on (trip_id, seq) cost PUT basket and POST trip
  // about a tenth of their throughput more (docs/performance.md). `trip_events_calls` answers a seller's
  // supplier calls of the last hour (the admin API's supplier health) and holds calls alone. No foreign key
  // to trips: an append would look the trip up too.
  // SQLite also gets trips.pending_events and the triggers that append it (tripEventTriggers), written for
  // SQLite alone.
  {
    version: 15,
    name: "a trip's timeline: its changes and its supplier calls",
    sqlite: tripEventsTable(sqlite, 'INTEGER NOT NULL', ' WITHOUT ROWID') + tripEventTriggers,
    postgres: tripEventsTable(postgres, 'bigint GENERATED ALWAYS AS IDENTITY', ''),
  },
  // The operator's orders by hour (the admin API's GET /admin/v1/orders/by-hour): every seller's orders changed
  // since a time, latest first, read from this index alone (it holds the status); one seller's go by orders_updated.
  writtenOnce(
    16,
    'orders by the time of their last change, across sellers',
    () => `
      CREATE INDEX orders_changed ON orders (updated_at, status);
    `,
  ),
]

export const schemaMigrationsTable = {
  sqlite: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`,
  postgres: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`,
}
