import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { REDACTED, Scrubber } from '@svc/core'
import { redactSensitive, scrubTrace } from './artifacts.ts'
import { forbiddenImport, importSpecifiers } from './imports.ts'
import { readZip, writeZip } from './zip.ts'

const secret = 's3cr3t value/+?'

describe('traces', () => {
  test('cookie headers and cookies in HAR-like entries are redacted', () => {
    assert.deepEqual(
      redactSensitive({
        headers: [
          { name: 'Cookie', value: 'a=b' },
          { name: 'Accept', value: '*/*' },
        ],
        cookies: [{ name: 'a', value: 'b' }],
      }),
      {
        headers: [
          { name: 'Cookie', value: REDACTED },
          { name: 'Accept', value: '*/*' },
        ],
        cookies: [{ name: 'a', value: REDACTED }],
      },
    )
  })

  test('a zip round-trips; scrubbing rewrites events, network headers and resources but not images', () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(secret)])
    const zip = writeZip([
      {
        name: 'trace.trace',
        data: Buffer.from(`${JSON.stringify({ type: 'log', message: `typed ${secret}` })}\n`),
      },
      {
        name: 'trace.network',
        data: Buffer.from(
          `${JSON.stringify({ snapshot: { request: { headers: [{ name: 'authorization', value: 'Bearer abc123' }] } } })}\n`,
        ),
      },
      { name: 'resources/page.html', data: Buffer.from(`<input value="${encodeURIComponent(secret)}">`) },
      { name: 'resources/shot.png', data: png },
    ])
    assert.deepEqual(
      readZip(zip).map((e) => e.name),
      ['trace.trace', 'trace.network', 'resources/page.html', 'resources/shot.png'],
    )
    const entries = Object.fromEntries(
      readZip(scrubTrace(zip, new Scrubber([secret]))).map((e) => [e.name, e.data]),
    )
    assert.equal(JSON.parse(entries['trace.trace']?.toString() ?? '').message, `typed ${REDACTED}`)
    assert.ok(!entries['trace.network']?.toString().includes('abc123'))
    assert.equal(entries['resources/page.html']?.toString(), `<input value="${REDACTED}">`)
    assert.deepEqual(entries['resources/shot.png'], png)
  })
})

describe('imports', () => {
  test('finds import, export-from, dynamic import and require specifiers, not comments', () => {
    const source = `import a from 'a'\nimport { b } from "b/sub"\nimport 'c'\nexport * from './d.js'\nconst e = await import('e')\nconst f = require('@f/g/h')\n// require('commented')\n/* import x from 'x' */`
    assert.deepEqual(importSpecifiers(source).sort(), ['./d.js', '@f/g/h', 'a', 'b/sub', 'c', 'e'])
  })

  test('only the runtime packages and Node.js built-ins are allowed', () => {
    const ok = `import { test } from '@playwright/test'\nimport fs from 'node:fs'\nimport path from 'path'\nimport _ from 'lodash/fp'\nimport { v4 } from 'uuid'\nimport './local.js'`
    assert.equal(forbiddenImport([{ path: 'a.spec.ts', content: ok }], '2025.04'), null)
    assert.match(
      forbiddenImport([{ path: 'lib/x.js', content: `const pg = require('pg')` }], '2024.09') ?? '',
      /^Cannot import 'pg' in lib\/x\.js: runtime 2024\.09 does not provide 'pg'/,
    )
    assert.equal(forbiddenImport([{ path: 'data.json', content: `require('pg')` }], '2025.04'), null)
  })
})
