import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ANALYTICS_KINDS } from '../check-types/index.ts'
import { metricMetadata, parseMetric } from './metrics.ts'

const urlMonitors = ANALYTICS_KINDS.find((kind) => kind.segment === 'url-monitors')!

test('the spec metric names of URL monitors parse; anything else does not', () => {
  const bases = ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download']
  const suffixes = ['', '_avg', '_max', '_median', '_min', '_p50', '_p90', '_p95', '_p99', '_stddev', '_sum']
  for (const base of bases) {
    for (const suffix of suffixes) assert.ok(parseMetric(urlMonitors, `${base}${suffix}`), `${base}${suffix}`)
  }
  assert.deepEqual(parseMetric(urlMonitors, 'responseTime_p95'), {
    name: 'responseTime_p95',
    base: 'responseTime',
    aggregation: 'p95',
    unit: 'milliseconds',
  })
  assert.equal(parseMetric(urlMonitors, 'responseTime')?.aggregation, null, 'a bare name is raw points')
  for (const bad of ['responseTime_p42', 'TTFB_avg', 'responseTime_avg_max', '', 'availability_avg']) {
    assert.equal(parseMetric(urlMonitors, bad), undefined, bad)
  }
  assert.deepEqual(metricMetadata(parseMetric(urlMonitors, 'dns_avg')!), {
    unit: 'milliseconds',
    label: 'dns (average)',
    aggregation: 'avg',
  })
  assert.deepEqual(urlMonitors.defaultMetrics, [
    'availability',
    'responseTime_avg',
    'responseTime_p50',
    'responseTime_p95',
    'responseTime_p99',
  ])
})
