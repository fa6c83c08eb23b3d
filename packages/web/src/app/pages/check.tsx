import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { api } from '../api.ts'
import { ANALYTICS_PATH, mainMetric, RANGES, type RangeKey, writableBody } from '../checks.ts'
import { CHECK_TYPE_LABELS, formatAgo, formatMs, formatPercent, formatTime } from '../format.ts'
import { overviewQuery } from '../overview-query.ts'
import { Link, navigate } from '../router.tsx'
import { useSession } from '../session.tsx'
import type { Check, CheckStatus, OverviewCheck } from '../types.ts'
import { type Series, TimeChart } from '../ui/chart.tsx'
import { Button, Card, ErrorBox, Loading, PageHeader, StatusBadge } from '../ui/ui.tsx'
import { AlertHistory, ErrorGroups, MaintenanceForCheck } from './check-panels.tsx'
import { HeartbeatPanel } from './heartbeat-panel.tsx'
import { ResultsList } from './results-list.tsx'

interface AnalyticsAnswer {
  series: ({ runLocation?: string; data: Record<string, number | null>[] } & Record<string, unknown>)[]
}

function statusOf(check: Check, overview: OverviewCheck | undefined): CheckStatus {
  if (!check.activated) return 'paused'
  return overview?.status ?? 'no-data'
}

export default function CheckPage(props: { checkId: string }) {
  const [range, setRange] = useState<RangeKey>('24h')
  const check = useQuery({
    queryKey: ['check', props.checkId],
    queryFn: () => api.get<Check>(`/v1/checks/${props.checkId}`),
  })
  const overview = useQuery(overviewQuery(`?id=${props.checkId}`))
  const summary = overview.data?.checks.find((entry) => entry.id === props.checkId)
  const actions = useCheckActions(props.checkId)
  if (check.isPending) return <Loading />
  if (check.error || !check.data) return <ErrorBox error={check.error} />
  const data = check.data
  const { trigger } = actions
  return (
    <>
      <PageHeader
        crumbs={<Link href="/">Checks</Link>}
        title={data.name}
        subtitle={<CheckHeaderStatus check={data} summary={summary} />}
        actions={<CheckActions check={data} actions={actions} />}
      />
      <ErrorBox
        error={actions.update.error ?? trigger.error ?? actions.remove.error ?? actions.duplicate.error}
      />
      {trigger.data && (
        <div className="alert alert-info" role="status">
          Ran now. <Link href={`/checks/${data.id}/results/${trigger.data.id}`}>See the result</Link>
        </div>
      )}
      {data.checkType === 'HEARTBEAT' && <HeartbeatPanel check={data} />}
      <fieldset className="segmented">
        <legend className="sr-only">Time range</legend>
        {(Object.keys(RANGES) as RangeKey[]).map((key) => (
          <button type="button" key={key} aria-pressed={range === key} onClick={() => setRange(key)}>
            {key}
          </button>
        ))}
      </fieldset>
      <CheckAnalytics check={data} range={range} />
      <ResultsList checkId={data.id} locations={[...data.locations, ...(data.privateLocations ?? [])]} />
      <ErrorGroups checkId={data.id} />
      <div className="grid">
        <MaintenanceForCheck tags={data.tags} />
        <AlertHistory checkId={data.id} />
      </div>
      <p className="muted">Last run {formatAgo(summary?.lastRunAt)}</p>
    </>
  )
}

/** Run now, pause or resume, mute or unmute, duplicate and delete: the check page's writes. */
function useCheckActions(checkId: string) {
  const client = useQueryClient()
  const update = useMutation({
    mutationFn: (changes: Partial<Check>) => api.put<Check>(`/v1/checks/${checkId}`, changes),
    onSuccess: (saved) => {
      client.setQueryData(['check', checkId], saved)
      void client.invalidateQueries({ queryKey: ['overview'] })
    },
  })
  const trigger = useMutation({
    mutationFn: () => api.post<{ id: string }>(`/v1/checks/${checkId}/trigger`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['results', checkId] }),
  })
  const remove = useMutation({
    mutationFn: () => api.delete(`/v1/checks/${checkId}`),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['overview'] })
      navigate('/')
    },
  })
  const duplicate = useMutation({
    mutationFn: async (source: Check) => {
      const body = { ...writableBody(source), name: `${source.name} (copy)` }
      const { CREATE_PATH } = await import('../checks.ts')
      return api.post<Check>(`/v1/checks/${CREATE_PATH[source.checkType]}`, body)
    },
    onSuccess: (created) => navigate(`/checks/${created.id}`),
  })
  return { update, trigger, remove, duplicate }
}

function CheckHeaderStatus(props: { check: Check; summary: OverviewCheck | undefined }) {
  const { check: data, summary } = props
  return (
    <span className="header-status">
      <StatusBadge status={statusOf(data, summary)} />
      {summary?.statusSince && <span>since {formatTime(summary.statusSince)}</span>}
      <span>· {CHECK_TYPE_LABELS[data.checkType]}</span>
      {data.checkType !== 'HEARTBEAT' && (
        <span>· every {data.frequency === 0 ? `${data.frequencyOffset} s` : `${data.frequency} min`}</span>
      )}
      {data.muted && <span className="chip">muted</span>}
    </span>
  )
}

function CheckActions(props: { check: Check; actions: ReturnType<typeof useCheckActions> }) {
  const { canWrite } = useSession()
  const { check: data } = props
  const { update, trigger, remove, duplicate } = props.actions
  if (!canWrite) return null
  return (
    <>
      {data.checkType !== 'HEARTBEAT' && (
        <Button variant="primary" onClick={() => trigger.mutate()} disabled={trigger.isPending}>
          {trigger.isPending ? 'Running…' : 'Run now'}
        </Button>
      )}
      <Link className="btn" href={`/checks/${data.id}/edit`}>
        Edit
      </Link>
      <Button onClick={() => update.mutate({ activated: !data.activated })}>
        {data.activated ? 'Pause' : 'Resume'}
      </Button>
      <Button onClick={() => update.mutate({ muted: !data.muted })}>{data.muted ? 'Unmute' : 'Mute'}</Button>
      <Button onClick={() => duplicate.mutate(data)}>Duplicate</Button>
      <Button
        variant="danger"
        onClick={() => {
          if (confirm(`Delete the check "${data.name}" and its results?`)) remove.mutate()
        }}
      >
        Delete
      </Button>
    </>
  )
}

/** The range's figures (the whole range) and its series per location, each polled every 30 s. */
function useAnalytics(check: Check, range: RangeKey, metric: string | null | undefined) {
  const { seconds, interval } = RANGES[range]
  const metrics = ['availability', ...(metric ? [`${metric}_p50`, `${metric}_p95`, `${metric}_p99`] : [])]
  const base = `/v1/analytics/${ANALYTICS_PATH[check.checkType]}/${check.id}`
  const window = (minutes: number) => {
    const to = Math.floor(Date.now() / 1000)
    return `from=${to - seconds}&to=${to}&aggregationInterval=${minutes}&metrics=${metrics.join(',')}`
  }
  const grouped = useQuery({
    queryKey: ['analytics', check.id, range, 'location'],
    queryFn: () =>
      api.get<AnalyticsAnswer>(
        `${base}?${window(interval)}${check.checkType === 'HEARTBEAT' ? '' : '&groupBy=runLocation'}`,
      ),
    refetchInterval: 30_000,
  })
  const total = useQuery({
    queryKey: ['analytics', check.id, range, 'total'],
    queryFn: () => api.get<AnalyticsAnswer>(`${base}?${window(Math.ceil(seconds / 60))}`),
    refetchInterval: 30_000,
  })
  return { grouped, total }
}

function CheckAnalytics(props: { check: Check; range: RangeKey }) {
  const { check, range } = props
  const metric = mainMetric(check.checkType)
  const { grouped, total } = useAnalytics(check, range, metric)
  const charts = useMemo(() => {
    const series = grouped.data?.series ?? []
    const toSeries = (name: string): Series[] =>
      series.map((entry) => ({
        label: `${entry.runLocation ?? 'all'}${name.includes('_') ? ` ${name.split('_')[1]}` : ''}`,
        times: entry.data.map((row) => Date.parse(String(row.timestamp)) / 1000),
        values: entry.data.map((row) => (typeof row[name] === 'number' ? (row[name] as number) : null)),
      }))
    return {
      availability: toSeries('availability'),
      latency: metric
        ? [...toSeries(`${metric}_p50`), ...toSeries(`${metric}_p95`), ...toSeries(`${metric}_p99`)]
        : [],
    }
  }, [grouped.data, metric])
  const pick = (name: string) => combine(total.data?.series[0]?.data ?? [], name)
  return (
    <>
      <div className="stats">
        <Stat label={`Availability (${range})`} value={formatPercent(pick('availability'))} />
        {metric && <Stat label="p50" value={formatMs(pick(`${metric}_p50`))} />}
        {metric && <Stat label="p95" value={formatMs(pick(`${metric}_p95`))} />}
        {metric && <Stat label="p99" value={formatMs(pick(`${metric}_p99`))} />}
      </div>
      <ErrorBox error={grouped.error} />
      <div className="grid">
        {metric && (
          <Card title="Response time by location (p50 / p95 / p99)">
            {grouped.isPending ? (
              <Loading />
            ) : (
              <TimeChart title="Response time percentiles" series={charts.latency} unit="ms" />
            )}
          </Card>
        )}
        <Card title="Availability by location">
          {grouped.isPending ? (
            <Loading />
          ) : (
            <TimeChart title="Availability" series={charts.availability} unit="%" />
          )}
        </Card>
      </div>
    </>
  )
}

function Stat(props: { label: string; value: string }) {
  return (
    <div className="stat">
      <div className="stat-label">{props.label}</div>
      <div className="stat-value">{props.value}</div>
    </div>
  )
}

/**
 * One figure for the whole range. Buckets start at local midnights, so a range-long bucket may come as
 * two: availability is their mean, a percentile the higher of the two (never better than the truth).
 */
function combine(rows: Record<string, number | null>[], name: string): number | null {
  const values = rows.map((row) => row[name]).filter((value): value is number => typeof value === 'number')
  if (values.length === 0) return null
  if (name === 'availability') return values.reduce((sum, value) => sum + value, 0) / values.length
  return Math.max(...values)
}
