import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadAgentConfig } from './config.ts'

test('defaults: only API_KEY is needed', () => {
  const config = loadAgentConfig({ API_KEY: 'svc_pl_key' })
  assert.deepEqual(config, {
    apiKey: 'svc_pl_key',
    apiUrl: 'http://localhost:3000',
    jobConcurrency: 10,
    healthPort: 8081,
    externalObservability: true,
    shutdownGraceMs: 60_000,
    chromiumPath: '/usr/bin/chromium',
    browserConcurrency: 2,
    scriptSandbox: 'auto',
    scriptHiddenPaths: [],
    proxy: { httpProxy: '', httpsProxy: '', noProxy: '' },
    secrets: [],
  })
})

test('every setting from the environment; SVC_SECRET_* values are collected for scrubbing', () => {
  const config = loadAgentConfig({
    API_KEY: 'svc_pl_key',
    SVC_API_URL: 'https://svc.example.com/',
    JOB_CONCURRENCY: '3',
    AGENT_HEALTH_PORT: '9000',
    EXTERNAL_OBSERVABILITY: 'OFF',
    SHUTDOWN_GRACE_SECONDS: '5',
    SVC_CHROMIUM_PATH: '/opt/chromium',
    SVC_SCRIPT_SANDBOX: 'On',
    SVC_SCRIPT_HIDDEN_PATHS: '/etc/svc-agent:/var/lib/secrets/',
    http_proxy: 'http://proxy:3128',
    HTTPS_PROXY: 'http://secure-proxy:3128',
    no_proxy: 'localhost,.internal',
    SVC_SECRET_DB: 'hunter22',
    SVC_SECRET_EMPTY: '',
    OTHER: 'not-a-secret',
  })
  assert.equal(config.apiUrl, 'https://svc.example.com')
  assert.equal(config.jobConcurrency, 3)
  assert.equal(config.healthPort, 9000)
  assert.equal(config.externalObservability, false)
  assert.equal(config.shutdownGraceMs, 5_000)
  assert.equal(config.chromiumPath, '/opt/chromium')
  assert.equal(config.scriptSandbox, 'on')
  assert.deepEqual(config.scriptHiddenPaths, ['/etc/svc-agent', '/var/lib/secrets'])
  assert.deepEqual(config.proxy, {
    httpProxy: 'http://proxy:3128',
    httpsProxy: 'http://secure-proxy:3128',
    noProxy: 'localhost,.internal',
  })
  assert.deepEqual(config.secrets, ['hunter22'])
  assert.equal(loadAgentConfig({ API_KEY: 'k', EXTERNAL_OBSERVABILITY: 'on' }).externalObservability, true)
})

test('bad values are refused with the variable’s name', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /API_KEY is not set/],
    [{ API_KEY: '  ' }, /API_KEY is not set/],
    [{ API_KEY: 'k', SVC_API_URL: 'ftp://x' }, /SVC_API_URL/],
    [{ API_KEY: 'k', JOB_CONCURRENCY: '0' }, /JOB_CONCURRENCY must be a positive integer/],
    [{ API_KEY: 'k', JOB_CONCURRENCY: '2.5' }, /JOB_CONCURRENCY/],
    [{ API_KEY: 'k', AGENT_HEALTH_PORT: '70000' }, /AGENT_HEALTH_PORT/],
    [{ API_KEY: 'k', SHUTDOWN_GRACE_SECONDS: 'soon' }, /SHUTDOWN_GRACE_SECONDS/],
    [{ API_KEY: 'k', SVC_SCRIPT_SANDBOX: 'yes' }, /SVC_SCRIPT_SANDBOX must be auto, on or off, got yes/],
    [
      { API_KEY: 'k', SVC_SCRIPT_HIDDEN_PATHS: '/etc/a:secrets' },
      /SVC_SCRIPT_HIDDEN_PATHS must list absolute paths, got secrets/,
    ],
    [{ API_KEY: 'k', HTTP_PROXY: 'not a url' }, /HTTP_PROXY must be an http:\/\/ or https:\/\/ URL/],
    // A typo must not leave error events on, nor a scheme-less proxy fail later without a name.
    [{ API_KEY: 'k', EXTERNAL_OBSERVABILITY: 'of' }, /EXTERNAL_OBSERVABILITY must be on or off, got of/],
    [{ API_KEY: 'k', EXTERNAL_OBSERVABILITY: 'false' }, /EXTERNAL_OBSERVABILITY must be on or off/],
    [
      { API_KEY: 'k', HTTPS_PROXY: 'proxy.internal:3128' },
      /HTTPS_PROXY must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      { API_KEY: 'k', http_proxy: 'socks5://proxy:1080' },
      /HTTP_PROXY must be an http:\/\/ or https:\/\/ URL/,
    ],
  ]
  for (const [env, message] of cases) {
    assert.throws(
      () => loadAgentConfig(env),
      (error) => error instanceof ConfigError && message.test(error.message),
      String(message),
    )
  }
})
