import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { type AgentJob, jobResultBody, ROLLUP_RESOLUTIONS } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { asAgent, latestDueMs, privateLocationWithKey } from '../../testing/agent-locations.ts'
import { createTestApp, json, type Tenant, type TestApp } from '../../testing/test-app.ts'
import { countRollups } from './analytics.repo.ts'
import { storeSeedResult } from './testing.ts'

/**
 * A private location's agent posts its runs' details at its own version. What analytics reads of them is
 * checked as it is posted (another type than the runner's is 400: nothing stored, nothing rolled up), and
 * again as analytics reads it while the result is stored, for results stored before that check: there a value
 * of another type counts as absent (it adds no metric), and never fails the write (a 500 and the result lost).
 */

const SCRIPT = "const { test } = require('@playwright/test'); test('t', async () => {})"
const RESPONSE_TIME = 1234
const BROWSER_METRICS = [
  'responseTime',
  'TTFB',
  'FCP',
  'LCP',
  'CLS',
  'TBT',
  'consoleErrors',
  'documentErrors',
  'networkErrors',
  'userScriptErrors',
]
const API_METRICS = ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download']

/** A metric's sum over a run (or one page of it): the metrics not named are absent (null). */
type Sums = Record<string, number>

for (const engine of testEngines()) {
  describe(`analytics of what an agent posts on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-23T08:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    const agentId = randomUUID()

    const passedOutcome = (detail: unknown) => {
      const at = new Date(nowMs).toISOString()
      return {
        verdict: {
          startedAt: at,
          stoppedAt: at,
          responseTime: RESPONSE_TIME,
          hasFailures: false,
          hasErrors: false,
          isDegraded: false,
          overMaxResponseTime: false,
          error: null,
        },
        detailKey: 'whatever',
        detail,
        statusCode: 200,
      }
    }

    /**
     * Creates one check of `type` per case in a new private location, has its agent post each case's run
     * (asserting `answer`) or, `stored`, stores it as a server that took any detail did, and answers the
     * check ids by case name.
     */
    async function posted(
      slugName: string,
      type: 'browser' | 'api',
      cases: Record<string, unknown>,
      via: 'posted' | 'stored' = 'posted',
      answer = 204,
    ) {
      const { rawKey } = await privateLocationWithKey(t, slugName)
      const ids = new Map<string, string>()
      for (const name of Object.keys(cases)) {
        const created = await t.call({
          method: 'POST',
          url: `/v1/checks/${type}?autoAssignAlerts=false`,
          payload: {
            name,
            locations: [],
            privateLocations: [slugName],
            doubleCheck: false,
            ...(type === 'browser' ? { script: SCRIPT } : { request: { url: 'https://shop.example.com/' } }),
          },
        })
        assert.equal(created.statusCode, 201, created.body)
        ids.set(name, json(created).id)
      }
      nowMs = Math.max(nowMs, await latestDueMs(t, ids.values()))
      const jobs: AgentJob[] = json(
        await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0&max=100' }),
      )
      assert.deepEqual(jobs.map((job) => job.checkId).sort(), [...ids.values()].sort())
      for (const [name, checkId] of ids) {
        const job = jobs.find((j) => j.checkId === checkId) as AgentJob
        let resultId = job.resultId
        if (via === 'stored') {
          const checkType = type === 'browser' ? 'BROWSER' : 'API'
          resultId = await storeSeedResult(
            t.ctx,
            { id: checkId, accountId: t.owner.accountId, checkType },
            {
              atMs: nowMs,
              location: slugName,
              failed: false,
              responseTime: RESPONSE_TIME,
              detail: { [type === 'browser' ? 'browserCheckResult' : 'apiCheckResult']: cases[name] },
            },
          )
        } else {
          const post = await asAgent(t, rawKey, agentId, {
            method: 'POST',
            url: '/agent/v1/results',
            payload: jobResultBody(job, passedOutcome(cases[name]) as never),
          })
          assert.equal(post.statusCode, answer, `${name}: ${post.body}`)
        }
        const results = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
        assert.deepEqual(
          results.map((r: { id: string; responseTime: number }) => [r.id, r.responseTime]),
          answer === 204 ? [[resultId, RESPONSE_TIME]] : [],
          `${name}: the result is stored, or not`,
        )
        if (answer !== 204) assert.equal(await countRollups(t.ctx, checkId), 0, `${name}: nothing rolled up`)
      }
      return ids
    }

    // The analytics limit is 30 queries a minute per key: a fresh reader every 25 queries.
    let queries = 0
    let reader: Tenant
    const analytics = async (url: string) => {
      if (queries++ % 25 === 0) reader = await t.addUser('READ_ONLY')
      const res = await t.call({ method: 'GET', url, as: reader })
      assert.equal(res.statusCode, 200, res.body)
      return json(res)
    }

    /** `series` rows folded into one: each metric's non-null value (one result: one row has it). */
    const totalsOf = (data: Record<string, unknown>[], names: string[]) => {
      const sums: Sums = {}
      for (const row of data)
        for (const name of names)
          if (typeof row[`${name}_sum`] === 'number') sums[name] = row[`${name}_sum`] as number
      return sums
    }

    /** What the rollups hold of a check's run: its sums, per page with `groupBy=pageIndex`. */
    async function rolledUp(path: string, checkId: string, names: string[], groupBy?: string) {
      const fromS = Math.floor(nowMs / 1000) - 3600
      const query = `from=${fromS}&to=${fromS + 7200}&aggregationInterval=60&metrics=${names.map((n) => `${n}_sum`).join(',')}`
      const body = await analytics(
        `/v1/analytics/${path}/${checkId}?${query}${groupBy ? `&groupBy=${groupBy}` : ''}`,
      )
      return body.series.map((s: { data: Record<string, unknown>[]; pageIndex?: number }) =>
        groupBy ? [s.pageIndex, totalsOf(s.data, names)] : totalsOf(s.data, names),
      )
    }

    /** The raw point of a check's one result (the first page's vitals). */
    async function rawPoint(path: string, checkId: string, names: string[]) {
      const fromS = Math.floor(nowMs / 1000) - 3600
      const body = await analytics(
        `/v1/analytics/${path}/${checkId}?from=${fromS}&to=${fromS + 7200}&metrics=${names.join(',')}`,
      )
      const [row] = body.series[0].data
      const { timestamp, ...values } = row
      return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null))
    }

    const noErrors = { consoleErrors: 0, documentErrors: 0, networkErrors: 0, userScriptErrors: 0 }
    const runOnly = { responseTime: RESPONSE_TIME, ...noErrors }

    /** Browser details as the runner sends them and with values of other types where analytics reads them. */
    const browserCases = {
      'as the runner sends': {
        errors: [{ message: 'Error: boom', stack: null }],
        logs: [
          { level: 'error', text: 'Failed', pageIndex: 0 },
          { level: 'error', text: 'Uncaught TypeError: x is undefined', pageIndex: 0 },
          { level: 'error', text: 'script stderr', pageIndex: null },
          { level: 'info', text: 'hello', pageIndex: 1 },
        ],
        network: [
          { pageIndex: 0, status: 404, failure: null },
          { pageIndex: 1, status: null, failure: 'net::ERR_CONNECTION_REFUSED' },
          { pageIndex: 1, status: 200, failure: null },
        ],
        pages: [
          { pageIndex: 0, webVitals: { TTFB: { value: 100 }, LCP: { value: 900 }, CLS: null } },
          { pageIndex: 1, webVitals: { TTFB: { value: 50 }, LCP: null } },
        ],
      },
      'lists of other types': { errors: 'Error: boom', logs: 5, network: 'x', pages: 7 },
      'objects for lists': {
        errors: { message: 'Error: boom' },
        logs: { level: 'error', text: 'Failed', pageIndex: 0 },
        network: { pageIndex: 0, status: 500 },
        pages: { pageIndex: 0, webVitals: { TTFB: { value: 100 } } },
      },
      'entries of other types': {
        errors: [null, 5, 'Error: boom', ['Error']],
        logs: [null, 5, 'error', ['error', 'Failed', 0]],
        network: [null, 404, 'net::ERR_FAILED', [500]],
        pages: [null, 7, 'https://shop.test/', [{ TTFB: { value: 100 } }]],
      },
      'fields of other types': {
        errors: [{ message: 'Error: boom', stack: null }],
        logs: [
          { level: 'error', text: 5, pageIndex: 0 },
          { level: 'error', text: { message: 'Uncaught TypeError' }, pageIndex: 0 },
          { level: ['error'], text: 'Failed', pageIndex: 0 },
          { level: 'error', text: 'Failed', pageIndex: '0' },
          { level: 'error', text: 'Uncaught TypeError', pageIndex: 0.5 },
          { level: 'error', text: 'Failed', pageIndex: { index: 0 } },
        ],
        network: [
          { pageIndex: 0, status: '500', failure: null },
          { pageIndex: 0, status: 503, failure: 5 },
          { pageIndex: 0, status: null, failure: true },
          { pageIndex: 0, status: [500], failure: ['net::ERR_FAILED'] },
          { pageIndex: '0', status: 500 },
          { pageIndex: 0, failure: 'net::ERR_FAILED' },
        ],
        pages: [
          {
            pageIndex: 0,
            webVitals: {
              TTFB: { value: '100' },
              FCP: 5,
              LCP: { value: 700 },
              CLS: [0.1],
              TBT: { value: null },
            },
          },
          { pageIndex: '1', webVitals: 'fast' },
          { pageIndex: 2, webVitals: [{ value: 1 }] },
        ],
      },
      'page indexes no store holds, or the run’s': {
        logs: [
          { level: 'error', text: 'Failed', pageIndex: -1 },
          { level: 'error', text: 'Failed', pageIndex: 2 ** 31 },
        ],
        network: [
          { pageIndex: 1e300, status: 500 },
          { pageIndex: -1, status: 500 },
        ],
        pages: [
          { pageIndex: -1, webVitals: { TTFB: { value: 10 } } },
          { pageIndex: 2 ** 31, webVitals: { TTFB: { value: 20 } } },
          { pageIndex: 1e21, webVitals: { TTFB: { value: 30 } } },
        ],
      },
    }
    const { 'as the runner sends': runnerSends, ...oddBrowser } = browserCases

    test('browser: an agent’s logs, network entries, pages and errors of other types are refused, adding no metric', async () => {
      await posted('browser-refused', 'browser', oddBrowser, 'posted', 400)
      await posted('browser-taken', 'browser', { 'as the runner sends': runnerSends })
    })

    test('browser: wrong-typed logs, network entries, pages and errors stored before they were checked add no metric', async () => {
      const ids = new Map([
        ...(await posted('browser-types', 'browser', { 'as the runner sends': runnerSends })),
        ...(await posted('browser-types-stored', 'browser', oddBrowser, 'stored')),
      ])
      const expected: Record<string, { run: Sums; pages: [number, Sums][]; raw: Sums }> = {
        'as the runner sends': {
          run: {
            ...runOnly,
            consoleErrors: 1,
            documentErrors: 1,
            networkErrors: 2,
            userScriptErrors: 1,
            TTFB: 150,
            LCP: 900,
          },
          pages: [
            [
              0,
              {
                ...runOnly,
                consoleErrors: 1,
                documentErrors: 1,
                networkErrors: 1,
                userScriptErrors: 1,
                TTFB: 100,
                LCP: 900,
              },
            ],
            [1, { ...runOnly, networkErrors: 1, userScriptErrors: 1, TTFB: 50 }],
          ],
          raw: {
            ...runOnly,
            consoleErrors: 1,
            documentErrors: 1,
            networkErrors: 2,
            userScriptErrors: 1,
            TTFB: 100,
            LCP: 900,
          },
        },
        'lists of other types': { run: runOnly, pages: [], raw: runOnly },
        'objects for lists': { run: runOnly, pages: [], raw: runOnly },
        'entries of other types': { run: runOnly, pages: [], raw: runOnly },
        'fields of other types': {
          run: { ...runOnly, consoleErrors: 2, networkErrors: 2, userScriptErrors: 1, LCP: 700 },
          pages: [
            [0, { ...runOnly, consoleErrors: 2, networkErrors: 2, userScriptErrors: 1, LCP: 700 }],
            // Placed by position when their own index is of another type.
            [1, { ...runOnly, userScriptErrors: 1 }],
            [2, { ...runOnly, userScriptErrors: 1 }],
          ],
          raw: { ...runOnly, consoleErrors: 2, networkErrors: 2, userScriptErrors: 1, LCP: 700 },
        },
        'page indexes no store holds, or the run’s': {
          run: { ...runOnly, TTFB: 60 },
          pages: [
            [0, { ...runOnly, TTFB: 10 }],
            [1, { ...runOnly, TTFB: 20 }],
            [2, { ...runOnly, TTFB: 30 }],
          ],
          raw: { ...runOnly, TTFB: 10 },
        },
      }
      for (const [name, checkId] of ids) {
        const want = expected[name] as (typeof expected)[string]
        assert.deepEqual(await rolledUp('browser-checks', checkId, BROWSER_METRICS), [want.run], name)
        assert.deepEqual(
          await rolledUp('browser-checks', checkId, BROWSER_METRICS, 'pageIndex'),
          want.pages,
          `${name} per page`,
        )
        assert.deepEqual(await rawPoint('browser-checks', checkId, BROWSER_METRICS), want.raw, `${name} raw`)
      }
    })

    test('browser: per page, a result counts its pages 0 to 49 once each; the run counts every page', async () => {
      const MANY = 5000
      const ids = await posted('browser-pages', 'browser', {
        '5,000 pages': {
          errors: [],
          logs: Array.from({ length: MANY }, (_, i) => ({ level: 'error', text: 'Failed', pageIndex: i })),
          network: [],
          pages: Array.from({ length: MANY }, (_, i) => ({
            pageIndex: i,
            url: `https://shop.test/${i}`,
            webVitals: { TTFB: { value: i + 1 } },
          })),
        },
        'three pages': {
          errors: [],
          logs: [{ level: 'error', text: 'Failed', pageIndex: 2 }],
          network: [{ pageIndex: 1, status: 500, failure: null }],
          pages: [0, 1, 2].map((i) => ({ pageIndex: i, webVitals: { TTFB: { value: 10 * (i + 1) } } })),
        },
        'a page listed twice': {
          errors: [],
          logs: [{ level: 'error', text: 'Failed', pageIndex: 0 }],
          network: [{ pageIndex: 0, status: 500, failure: null }],
          pages: [
            { pageIndex: 0, webVitals: { TTFB: { value: 10 } } },
            { pageIndex: 0, webVitals: { TTFB: { value: 20 } } },
            { pageIndex: 1, webVitals: { TTFB: { value: 5 } } },
          ],
        },
        'only pages past the 50th': {
          errors: [],
          logs: [{ level: 'error', text: 'Failed', pageIndex: 60 }],
          network: [],
          pages: [{ pageIndex: 60, webVitals: { TTFB: { value: 7 } } }],
        },
      })
      const kept = Array.from({ length: 50 }, (_, i) => i)
      const expected: Record<string, { run: Sums; pages: [number, Sums][] }> = {
        '5,000 pages': {
          run: { ...runOnly, consoleErrors: MANY, TTFB: (MANY * (MANY + 1)) / 2 },
          pages: kept.map((i) => [i, { ...runOnly, consoleErrors: 1, TTFB: i + 1 }]),
        },
        'three pages': {
          run: { ...runOnly, consoleErrors: 1, networkErrors: 1, TTFB: 60 },
          pages: [
            [0, { ...runOnly, TTFB: 10 }],
            [1, { ...runOnly, networkErrors: 1, TTFB: 20 }],
            [2, { ...runOnly, consoleErrors: 1, TTFB: 30 }],
          ],
        },
        // One run of page 0: its response time and errors once, both of its listed vitals.
        'a page listed twice': {
          run: { ...runOnly, consoleErrors: 1, networkErrors: 1, TTFB: 35 },
          pages: [
            [0, { ...runOnly, consoleErrors: 1, networkErrors: 1, TTFB: 30 }],
            [1, { ...runOnly, TTFB: 5 }],
          ],
        },
        'only pages past the 50th': { run: { ...runOnly, consoleErrors: 1, TTFB: 7 }, pages: [] },
      }
      for (const [name, checkId] of ids) {
        const want = expected[name] as (typeof expected)[string]
        assert.equal(
          await countRollups(t.ctx, checkId),
          // No minute rows: a browser check's minute buckets are answered from its results.
          (ROLLUP_RESOLUTIONS.length - 1) * (1 + want.pages.length),
          `${name}: one hour and one day row for the run and for each page counted`,
        )
        assert.deepEqual(await rolledUp('browser-checks', checkId, BROWSER_METRICS), [want.run], name)
        assert.deepEqual(
          await rolledUp('browser-checks', checkId, BROWSER_METRICS, 'pageIndex'),
          want.pages,
          `${name} per page`,
        )
        const fromS = Math.floor(nowMs / 1000) - 3600
        const raw = await analytics(
          `/v1/analytics/browser-checks/${checkId}?from=${fromS}&to=${fromS + 7200}&metrics=TTFB&groupBy=pageIndex`,
        )
        assert.deepEqual(
          raw.series.map((s: { pageIndex: number }) => s.pageIndex),
          want.pages.map(([pageIndex]) => pageIndex),
          `${name}: raw points per page`,
        )
      }
      // The result itself is kept as posted.
      const checkId = ids.get('5,000 pages') as string
      const [{ id }] = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}` }))
      const stored = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}/${id}` }))
      assert.equal(stored.browserCheckResult.pages.length, MANY)
      assert.equal(stored.browserCheckResult.logs.length, MANY)
      assert.deepEqual(stored.browserCheckResult.pages[MANY - 1], {
        pageIndex: MANY - 1,
        url: `https://shop.test/${MANY - 1}`,
        webVitals: { TTFB: { value: MANY } },
      })
    })

    test('API: wrong-typed timing phases are refused from an agent; stored before they were checked, they add no metric', async () => {
      const odd = {
        'phases of other types': {
          timingPhases: { wait: '1', dns: [2], tcp: { ms: 3 }, firstByte: null, download: 5 },
        },
        'no object of phases': { timingPhases: 'fast' },
        'a list of phases': { timingPhases: [{ wait: 1 }] },
        'a list for a detail': [{ timingPhases: { wait: 1 } }],
      }
      await posted('api-refused', 'api', odd, 'posted', 400)
      const ids = new Map([
        ...(await posted('api-types', 'api', {
          'as the runner sends': { timingPhases: { wait: 1, dns: 2, tcp: 3, firstByte: 4, download: 5 } },
        })),
        ...(await posted('api-types-stored', 'api', odd, 'stored')),
      ])
      const expected: Record<string, Sums> = {
        'as the runner sends': {
          responseTime: RESPONSE_TIME,
          wait: 1,
          dns: 2,
          tcp: 3,
          firstByte: 4,
          download: 5,
        },
        'phases of other types': { responseTime: RESPONSE_TIME, download: 5 },
        'no object of phases': { responseTime: RESPONSE_TIME },
        'a list of phases': { responseTime: RESPONSE_TIME },
        'a list for a detail': { responseTime: RESPONSE_TIME },
      }
      for (const [name, checkId] of ids) {
        assert.deepEqual(await rolledUp('api-checks', checkId, API_METRICS), [expected[name]], name)
        assert.deepEqual(await rawPoint('api-checks', checkId, API_METRICS), expected[name], `${name} raw`)
      }
    })
  })
}
