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
