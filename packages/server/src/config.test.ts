import assert from 'node:assert/strict'
import { resolve } from 'node:path'
import { test } from 'node:test'
import { ConfigError, loadConfig } from './config.ts'

test('script sandbox: auto by default, with the data directory hidden from scripts', () => {
  const config = loadConfig({ SVC_DATA_DIR: '/srv/svc/data' })
  assert.equal(config.scriptSandbox, 'auto')
  assert.deepEqual(config.scriptHiddenPaths, ['/srv/svc/data'])
  assert.deepEqual(loadConfig({}).scriptHiddenPaths, [resolve('./data')])
})

test('SVC_SCRIPT_SANDBOX and SVC_SCRIPT_HIDDEN_PATHS are read; bad values name the variable', () => {
  const config = loadConfig({
    SVC_DATA_DIR: '/srv/svc/data',
    SVC_SCRIPT_SANDBOX: 'ON',
    SVC_SCRIPT_HIDDEN_PATHS: '/etc/svc:/srv/tls/',
  })
  assert.equal(config.scriptSandbox, 'on')
  assert.deepEqual(config.scriptHiddenPaths, ['/srv/svc/data', '/etc/svc', '/srv/tls'])
  assert.equal(loadConfig({ SVC_SCRIPT_SANDBOX: 'off' }).scriptSandbox, 'off')
  assert.throws(
    () => loadConfig({ SVC_SCRIPT_SANDBOX: 'strict' }),
    new ConfigError('SVC_SCRIPT_SANDBOX must be auto, on or off, got strict'),
  )
  assert.throws(
    () => loadConfig({ SVC_SCRIPT_HIDDEN_PATHS: '/etc/svc:tls' }),
    new ConfigError('SVC_SCRIPT_HIDDEN_PATHS must list absolute paths, got tls'),
  )
})

test("SVC_REGION is what {{REGION}} renders in this node's alerts; unset, the first served location", () => {
  assert.equal(loadConfig({ SVC_REGION: 'eu-central-1' }).alerting.region, 'eu-central-1')
  assert.equal(loadConfig({ SVC_LOCATIONS: 'us-east-1,eu-west-1' }).alerting.region, 'us-east-1')
  assert.equal(loadConfig({}).alerting.region, 'local')
})

test('LOG_LEVEL: one of pino’s levels, in any case; another value names the variable instead of a stack trace', () => {
  assert.equal(loadConfig({}).logLevel, 'info')
  assert.equal(loadConfig({ LOG_LEVEL: 'debug' }).logLevel, 'debug')
  assert.equal(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel, 'warn')
  assert.equal(loadConfig({ LOG_LEVEL: 'silent' }).logLevel, 'silent')
  assert.throws(
    () => loadConfig({ LOG_LEVEL: 'verbose' }),
    new ConfigError('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got verbose'),
  )
})

test('SVC_SMS_HEADERS: string values, and no header the request-header rule refuses (it would fail every SMS)', () => {
  const sms = (headers: string) =>
    loadConfig({ SVC_SMS_URL: 'https://sms.example.com/send', SVC_SMS_HEADERS: headers }).alerting.sms
  assert.deepEqual(sms('{"Authorization": "Bearer t", "TE": "trailers"}')?.headers, {
    Authorization: 'Bearer t',
    TE: 'trailers',
  })
  assert.throws(
    () => sms('{"Keep-Alive": "timeout=5"}'),
    new ConfigError("SVC_SMS_HEADERS: Keep-Alive can't be set: svc frames each request itself"),
  )
  assert.throws(
    () => sms('{"Authorization": "Bearer t\\n"}'),
    new ConfigError(
      "SVC_SMS_HEADERS: Authorization can't be sent: its value holds a control character (such as a line " +
        "break or NUL), which HTTP can't carry in a header (a tab can)",
    ),
  )
  assert.throws(
    () => sms('{"X-Token": 5}'),
    new ConfigError('SVC_SMS_HEADERS must be a JSON object of header names to string values'),
  )
})

test('SVC_ADMIN_TOKEN needs at least 32 characters', () => {
  assert.throws(
    () => loadConfig({ SVC_ADMIN_TOKEN: 'a'.repeat(31) }),
    (error: unknown) => error instanceof ConfigError && /at least 32 characters/.test(error.message),
  )
  assert.equal(loadConfig({ SVC_ADMIN_TOKEN: 'a'.repeat(32) }).adminToken, 'a'.repeat(32))
  assert.equal(loadConfig({}).adminToken, undefined)
})

test('SVC_TRUST_PROXY: off by default; true, or proxy addresses, ranges and names', () => {
  assert.equal(loadConfig({}).trustProxy, false)
  assert.equal(loadConfig({ SVC_TRUST_PROXY: 'false' }).trustProxy, false)
  assert.equal(loadConfig({ SVC_TRUST_PROXY: 'TRUE' }).trustProxy, true)
  assert.deepEqual(loadConfig({ SVC_TRUST_PROXY: '10.0.0.0/8, loopback,fd00::/8,192.0.2.1' }).trustProxy, [
    '10.0.0.0/8',
    'loopback',
    'fd00::/8',
    '192.0.2.1',
  ])
  for (const value of ['2', 'proxy.example', '10.0.0.0/33', '10.0.0.1/8/8']) {
    assert.throws(
      () => loadConfig({ SVC_TRUST_PROXY: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes('SVC_TRUST_PROXY'),
      value,
    )
  }
})

test('abuse limits: defaults, settings, and bad values name the variable', () => {
  assert.deepEqual(loadConfig({}).limits, {
    accountRateLimit: 1200,
    keysPerUser: 100,
    serviceKeysPerAccount: 100,
    failedAuth: { max: 10, windowSeconds: 300 },
    statusForms: { max: 20, windowSeconds: 600 },
  })
  const set = loadConfig({
    SVC_ACCOUNT_RATE_LIMIT: '3000',
    SVC_MAX_KEYS_PER_USER: '5',
    SVC_MAX_SERVICE_KEYS_PER_ACCOUNT: '7',
    SVC_FAILED_AUTH_LIMIT: '20',
    SVC_FAILED_AUTH_WINDOW_SECONDS: '900',
  }).limits
  assert.deepEqual(set, {
    accountRateLimit: 3000,
    keysPerUser: 5,
    serviceKeysPerAccount: 7,
    failedAuth: { max: 20, windowSeconds: 900 },
    statusForms: { max: 20, windowSeconds: 600 },
  })
  for (const [name, value] of [
    ['SVC_ACCOUNT_RATE_LIMIT', '0'],
    ['SVC_MAX_KEYS_PER_USER', 'many'],
    ['SVC_FAILED_AUTH_WINDOW_SECONDS', '86401'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(name),
      name,
    )
  }
})

test('SVC_DEPLOYMENT_LEASE_SECONDS: 10 minutes by default, at least 3 seconds', () => {
  assert.equal(loadConfig({}).deploymentLeaseMs, 600_000)
  assert.equal(loadConfig({ SVC_DEPLOYMENT_LEASE_SECONDS: '30' }).deploymentLeaseMs, 30_000)
  assert.throws(
    () => loadConfig({ SVC_DEPLOYMENT_LEASE_SECONDS: '2' }),
    new ConfigError('SVC_DEPLOYMENT_LEASE_SECONDS must be at least 3'),
  )
})

test('LOG_FORMAT: pretty lines on a terminal, JSON otherwise, unless set', () => {
  assert.equal(loadConfig({}, true).logFormat, 'pretty')
  assert.equal(loadConfig({}, false).logFormat, 'json')
  assert.equal(loadConfig({ LOG_FORMAT: 'json' }, true).logFormat, 'json')
  assert.equal(loadConfig({ LOG_FORMAT: 'Pretty' }, false).logFormat, 'pretty')
  assert.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), /LOG_FORMAT must be auto, pretty or json/)
})

test('dashboard sessions: defaults, settings, and an idle timeout no longer than the maximum age', () => {
  assert.deepEqual(loadConfig({}).sessions, {
    maxAgeMs: 7 * 24 * 3_600_000,
    idleMs: 24 * 3_600_000,
    passwordLinkMs: 24 * 3_600_000,
  })
  const set = loadConfig({
    SVC_SESSION_MAX_AGE_HOURS: '12',
    SVC_SESSION_IDLE_MINUTES: '30',
    SVC_PASSWORD_LINK_HOURS: '2',
  }).sessions
  assert.deepEqual(set, { maxAgeMs: 12 * 3_600_000, idleMs: 30 * 60_000, passwordLinkMs: 2 * 3_600_000 })
  assert.throws(
    () => loadConfig({ SVC_SESSION_IDLE_MINUTES: '0' }),
    /SVC_SESSION_IDLE_MINUTES must be a positive integer/,
  )
  assert.throws(
    () => loadConfig({ SVC_SESSION_MAX_AGE_HOURS: '1', SVC_SESSION_IDLE_MINUTES: '61' }),
    /must not be longer than SVC_SESSION_MAX_AGE_HOURS/,
  )
})

test('SVC_HTTP_*: header, request and idle timeouts and the connection cap, with defaults; impossible ones name the variable', () => {
  assert.deepEqual(loadConfig({}).connectionLimits, {
    headersTimeoutMs: 20_000,
    requestTimeoutMs: 120_000,
    idleTimeoutMs: 120_000,
    maxConnections: 10_000,
  })
  assert.deepEqual(
    loadConfig({
      SVC_HTTP_HEADERS_TIMEOUT_SECONDS: '5',
      SVC_HTTP_REQUEST_TIMEOUT_SECONDS: '600',
      SVC_HTTP_IDLE_TIMEOUT_SECONDS: '31',
      SVC_HTTP_MAX_CONNECTIONS: '500',
    }).connectionLimits,
    { headersTimeoutMs: 5_000, requestTimeoutMs: 600_000, idleTimeoutMs: 31_000, maxConnections: 500 },
  )
  assert.throws(
    () => loadConfig({ SVC_HTTP_MAX_CONNECTIONS: '0' }),
    new ConfigError('SVC_HTTP_MAX_CONNECTIONS must be a positive integer, got 0'),
  )
  assert.throws(
    () => loadConfig({ SVC_HTTP_HEADERS_TIMEOUT_SECONDS: '1.5' }),
    new ConfigError('SVC_HTTP_HEADERS_TIMEOUT_SECONDS must be a positive integer, got 1.5'),
  )
  assert.throws(
    () => loadConfig({ SVC_HTTP_HEADERS_TIMEOUT_SECONDS: '60', SVC_HTTP_REQUEST_TIMEOUT_SECONDS: '30' }),
    new ConfigError(
      'SVC_HTTP_HEADERS_TIMEOUT_SECONDS must not be more than SVC_HTTP_REQUEST_TIMEOUT_SECONDS (headers are part of the request)',
    ),
  )
  assert.throws(
    () => loadConfig({ SVC_HTTP_IDLE_TIMEOUT_SECONDS: '30' }),
    new ConfigError(
      "SVC_HTTP_IDLE_TIMEOUT_SECONDS must be more than 30: agents' long-polls wait that long in silence",
    ),
  )
})

test('SVC_NODE_ID: unset by default (the id kept in the data directory), else a plain name', () => {
  assert.equal(loadConfig({}).nodeId, undefined)
  assert.equal(loadConfig({ SVC_NODE_ID: 'svc-1.eu_west' }).nodeId, 'svc-1.eu_west')
  assert.throws(
    () => loadConfig({ SVC_NODE_ID: 'node 1' }),
    new ConfigError('SVC_NODE_ID must be 1-100 letters, digits, ., _ or -, got node 1'),
  )
})
