import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig, ConfigError } from '../../server/config.ts'

test('defaults: loopback on 3000, SQLite under ./data, spec token lifetimes left to the core', () => {
  const c = loadConfig({})
  assert.equal(c.port, 3000)
  assert.equal(c.host, '127.0.0.1')
  assert.equal(c.databaseUrl, 'sqlite:./data/svc.db')
  assert.equal(c.demoApiKey, undefined)
  assert.equal(c.logLevel, 'info')
  assert.equal(c.accessTokenTtl, undefined)
  assert.equal(c.refreshTokenTtl, undefined)
  assert.equal(c.rateLimitMax, 600)
  assert.equal(c.rateLimitWindowMs, 60_000)
  assert.equal(c.trustProxy, false)
  assert.equal(c.worker, true, 'npm start runs the job worker unless told otherwise')
  assert.equal(c.metricsToken, undefined, 'GET /metrics is open unless a token is set')
})

test('every variable is read', () => {
  const c = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATABASE_URL: 'postgres://u:p@db/svc',
    SVC_DEMO_API_KEY: 'svc_test_demo_key_123',
    LOG_LEVEL: 'DEBUG',
    ACCESS_TOKEN_TTL_SECONDS: '300',
    REFRESH_TOKEN_TTL_SECONDS: '900',
    RATE_LIMIT_MAX: '50',
    RATE_LIMIT_WINDOW_SECONDS: '10',
    TRUST_PROXY: '10.0.0.0/8, 192.168.0.1',
    WORKER: 'off',
    RETENTION_SEARCH_HOURS: '12',
    RETENTION_TRIP_DAYS: '14',
    RETENTION_IDEMPOTENCY_HOURS: '48',
    RETENTION_JOB_DAYS: '3',
    DATABASE_POOL_SIZE: '20',
    SIGNING_KEY_SECRET: 's'.repeat(32),
    SIGNING_KEY_ROTATION_DAYS: '7',
    TICKETING_TIMEOUT_HOURS: '48',
    METRICS_PORT: '9464',
    METRICS_TOKEN: 'scrape-0123456789abcdef',
    DUFFEL_API_URL: 'http://127.0.0.1:4010',
    SUPPLIER_TIMEOUT_MS: '2500',
    SUPPLIER_RECONCILE_MINUTES: '30',
    SUPPLIER_MAX_RESPONSE_BYTES: '1048576',
    SUPPLIER_SEARCH_CONCURRENCY: '8',
  })
  assert.deepEqual(c, {
    port: 8080,
    host: '0.0.0.0',
    databaseUrl: 'postgres://u:p@db/svc',
    demoApiKey: 'svc_test_demo_key_123',
    logLevel: 'debug',
    accessTokenTtl: 300,
    refreshTokenTtl: 900,
    rateLimitMax: 50,
    rateLimitWindowMs: 10_000,
    trustProxy: ['10.0.0.0/8', '192.168.0.1'],
    worker: false,
    retention: { searchHours: 12, tripDays: 14, idempotencyHours: 48, jobDays: 3 },
    databasePoolSize: 20,
    signingKeySecret: 's'.repeat(32),
    signingKeyRotationDays: 7,
    ticketingTimeoutHours: 48,
    metricsPort: 9464,
    metricsToken: 'scrape-0123456789abcdef',
    duffelApiUrl: 'http://127.0.0.1:4010',
    supplierTimeoutMs: 2500,
    supplierMaxResponseBytes: 1_048_576,
    supplierSearchConcurrency: 8,
    supplierReconcileMinutes: 30,
  })
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
})

test("SUPPLIER_TIMEOUT_MS is at most 15000: a fulfill's three supplier calls fit in its job's 60 s lease", () => {
  assert.equal(loadConfig({ SUPPLIER_TIMEOUT_MS: '15000' }).supplierTimeoutMs, 15_000)
  assert.throws(() => loadConfig({ SUPPLIER_TIMEOUT_MS: '40000' }), /SUPPLIER_TIMEOUT_MS/)
})

test('bad values are all reported at once, naming the variable', () => {
  try {
    loadConfig({
      PORT: 'http',
      DATABASE_URL: 'mysql://x',
      SVC_DEMO_API_KEY: 'short:key',
      LOG_LEVEL: 'loud',
      ACCESS_TOKEN_TTL_SECONDS: '-5',
      RATE_LIMIT_MAX: '0',
      TRUST_PROXY: 'everyone',
      WORKER: 'maybe',
      METRICS_TOKEN: 'short',
      DUFFEL_API_URL: 'http://duffel.example',
      SUPPLIER_TIMEOUT_MS: '0',
    })
    assert.fail('expected a ConfigError')
  } catch (e) {
    assert.ok(e instanceof ConfigError)
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'SVC_DEMO_API_KEY',
      'LOG_LEVEL',
      'ACCESS_TOKEN_TTL_SECONDS',
      'RATE_LIMIT_MAX',
      'TRUST_PROXY',
      'WORKER',
      'METRICS_TOKEN',
      'DUFFEL_API_URL',
      'SUPPLIER_TIMEOUT_MS',
    ]) {
      assert.ok(
        e.problems.some((p) => p.startsWith(name)),
        `${name} reported: ${e.message}`,
      )
    }
    assert.ok(!e.message.includes('mysql://x'), 'a database URL may hold a password; only its start is echoed')
  }
})

test('METRICS_TOKEN is at least 16 visible ASCII characters, with no spaces (it is sent in a header)', () => {
  assert.equal(
    loadConfig({ METRICS_TOKEN: '  0123456789abcdef  ' }).metricsToken,
    '0123456789abcdef',
    'surrounding blanks are trimmed',
  )
  assert.throws(() => loadConfig({ METRICS_TOKEN: '0123456789abcde' }), /METRICS_TOKEN/)
  assert.throws(() => loadConfig({ METRICS_TOKEN: '0123456789 abcdef' }), /METRICS_TOKEN/)
  assert.throws(() => loadConfig({ METRICS_TOKEN: '0123456789abcdéf' }), /METRICS_TOKEN/)
})

test('a refresh token must outlive the access token it renews', () => {
  assert.throws(
    () => loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '3600', REFRESH_TOKEN_TTL_SECONDS: '1800' }),
    /REFRESH_TOKEN_TTL_SECONDS/,
  )
})
