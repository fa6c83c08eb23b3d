import { useQuery } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { api } from '../api.ts'
import { CHECK_TYPE_LABELS, formatMs, formatTime } from '../format.ts'
import { Link } from '../router.tsx'
import type { AssertionResult, CheckResult, HttpResult } from '../types.ts'
import { Cell, Row, StackTable, type TableColumn } from '../ui/table.tsx'
import { Card, ErrorBox, KeyValues, Loading, PageHeader, ResultBadge } from '../ui/ui.tsx'
import { ScriptResult } from './script-result.tsx'

const DETAIL_KEYS = [
  'apiCheckResult',
  'urlCheckResult',
  'tcpCheckResult',
  'dnsCheckResult',
  'icmpCheckResult',
  'sslCheckResult',
  'browserCheckResult',
  'multiStepCheckResult',
  'playwrightCheckResult',
  'heartbeatCheckResult',
] as const

export default function ResultPage(props: { checkId: string; resultId: string }) {
  const result = useQuery({
    queryKey: ['result', props.checkId, props.resultId],
    queryFn: () => api.get<CheckResult>(`/v1/check-results/${props.checkId}/${props.resultId}`),
  })
  const check = useQuery({
    queryKey: ['check', props.checkId],
    queryFn: () => api.get<{ name: string }>(`/v1/checks/${props.checkId}`),
  })
  if (result.isPending) return <Loading />
  if (result.error || !result.data) return <ErrorBox error={result.error} />
  return (
    <ResultView
      data={result.data}
      checkId={props.checkId}
      crumbs={
        <>
          <Link href="/">Checks</Link> /{' '}
          <Link href={`/checks/${props.checkId}`}>{check.data?.name ?? 'Check'}</Link>
        </>
      }
    />
  )
}

/** Everything a result holds, readable: a check's result, or a test session's run of a definition. */
export function ResultView(props: { data: CheckResult; crumbs: ReactNode; checkId?: string }) {
  const { data } = props
  const http = data.apiCheckResult ?? data.urlCheckResult
  return (
    <>
      <PageHeader
        crumbs={props.crumbs}
        title={`Result of ${formatTime(data.startedAt, true)}`}
        subtitle={<ResultBadge failed={data.hasFailures} degraded={data.isDegraded} />}
      />
      <Card>
        <KeyValues
          rows={[
            ['Type', CHECK_TYPE_LABELS[data.checkType] ?? data.checkType],
            ['Location', data.runLocation],
            ['Started', formatTime(data.startedAt, true)],
            ['Stopped', formatTime(data.stoppedAt, true)],
            ['Response time', formatMs(data.responseTime)],
            ['Attempts', String(data.attempts)],
            ['Result type', data.resultType],
            ['Over max response time', data.overMaxResponseTime ? 'yes' : 'no'],
          ]}
        />
        {data.error && (
          <div className="alert alert-error" role="alert">
            <strong>{data.error.type}</strong>: {data.error.message}
          </div>
        )}
      </Card>
      {http && (
        <HttpDetail
          detail={http}
          omitted={data.detailOmitted === true}
          copiedFrom={typeof data.detailCopiedFrom === 'string' ? data.detailCopiedFrom : undefined}
          checkId={props.checkId}
        />
      )}
      {data.tcpCheckResult && <FigureCard title="TCP" detail={data.tcpCheckResult} />}
      {data.dnsCheckResult && <FigureCard title="DNS answers" detail={data.dnsCheckResult} />}
      {data.icmpCheckResult && <FigureCard title="ICMP" detail={data.icmpCheckResult} />}
      {data.sslCheckResult && <FigureCard title="Certificate" detail={data.sslCheckResult} />}
      {(data.browserCheckResult || data.multiStepCheckResult || data.playwrightCheckResult) && (
        <ScriptResult
          detail={
            (data.browserCheckResult ?? data.multiStepCheckResult ?? data.playwrightCheckResult) as Record<
              string,
              unknown
            >
          }
        />
      )}
      <details className="card raw">
        <summary className="card-header">Raw result (JSON)</summary>
        <div className="card-body">
          <pre>{JSON.stringify(omit(data, DETAIL_KEYS), null, 2)}</pre>
        </div>
      </details>
    </>
  )
}

function omit(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)))
}

const PHASES = ['wait', 'dns', 'tcp', 'tls', 'firstByte', 'download'] as const

function Waterfall(props: { phases: Record<string, number | null> }) {
  const total = props.phases.total ?? PHASES.reduce((sum, phase) => sum + (props.phases[phase] ?? 0), 0)
  let offset = 0
  return (
    <div className="waterfall">
      {PHASES.map((phase) => {
        const value = props.phases[phase] ?? 0
        const left = total ? (offset / total) * 100 : 0
        const width = total ? (value / total) * 100 : 0
        offset += value
        return (
          <div key={phase} style={{ display: 'contents' }}>
            <span>{phase}</span>
            <div className="waterfall-bar">
              <span style={{ left: `${left}%`, width: `${width}%` }} />
            </div>
            <span className="num">{formatMs(value)}</span>
          </div>
        )
      })}
      <strong>total</strong>
      <span />
      <strong className="num">{formatMs(total)}</strong>
    </div>
  )
}

function Headers(props: { headers?: Record<string, string> | [string, string][] | null }) {
  const entries = Array.isArray(props.headers) ? props.headers : Object.entries(props.headers ?? {})
  if (entries.length === 0) return <p className="muted">No headers.</p>
  return (
    <table className="table compact">
      <tbody>
        {entries.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>
              <code>{String(value)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function prettyBody(body: string | undefined): string {
  if (!body) return ''
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

function HttpDetail(props: { detail: HttpResult; omitted: boolean; copiedFrom?: string; checkId?: string }) {
  const { timingPhases } = props.detail
  return (
    <>
      {timingPhases && (
        <Card title="Timing">
          <Waterfall phases={timingPhases} />
        </Card>
      )}
      {props.omitted && props.copiedFrom && props.checkId && (
        <p className="muted" data-testid="detail-omitted">
          This passing run was stored with its timings only. Its request, response and assertions were the
          same as those of{' '}
          <Link href={`/checks/${props.checkId}/results/${props.copiedFrom}`}>
            an earlier run kept in full
          </Link>{' '}
          (apart from timings and the date header), shown below.
        </p>
      )}
      {props.omitted && !props.copiedFrom && (
        <p className="muted" data-testid="detail-omitted">
          This passing run was stored with its timings only: its request, response and assertions were the
          same as an earlier run's, which is no longer kept.
        </p>
      )}
      {props.omitted && !props.copiedFrom ? null : <HttpExchange detail={props.detail} />}
    </>
  )
}

function HttpExchange(props: { detail: HttpResult }) {
  const { request, response, assertions } = props.detail
  return (
    <>
      {assertions && assertions.length > 0 && <Assertions assertions={assertions} />}
      <div className="grid">
        <Card title={`Request${request?.method ? `: ${request.method}` : ''}`}>
          {request?.url && (
            <p>
              <code>{request.url}</code>
            </p>
          )}
          <h3>Headers</h3>
          <Headers headers={request?.headers} />
          {(request?.data || request?.body) && (
            <>
              <h3>Body</h3>
              <pre>{prettyBody(request?.data ?? request?.body)}</pre>
            </>
          )}
        </Card>
        <Card
          title={`Response${response?.status ? `: ${response.status} ${response.statusText ?? ''}` : ''}`}
        >
          <h3>Headers</h3>
          <Headers headers={response?.headers} />
          <h3>Body</h3>
          {response?.body ? <pre>{prettyBody(response.body)}</pre> : <p className="muted">Empty.</p>}
        </Card>
      </div>
    </>
  )
}

const ASSERTION_COLUMNS: TableColumn[] = [
  'Result',
  'Source',
  'Property',
  'Comparison',
  'Target',
  'Actual',
].map((label) => ({ label }))

export function Assertions(props: { assertions: AssertionResult[] }) {
  return (
    <Card title="Assertions">
      <div className="table-wrap">
        <StackTable columns={ASSERTION_COLUMNS}>
          {props.assertions.map((assertion, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: assertions have no id and keep their order
            <Row key={index}>
              <Cell label="Result" className={assertion.passed ? 'pass-text' : 'fail-text'}>
                {assertion.passed ? 'Passed' : 'Failed'}
              </Cell>
              <Cell label="Source">{assertion.source}</Cell>
              <Cell label="Property">
                <code>{assertion.property || '—'}</code>
              </Cell>
              <Cell label="Comparison">{assertion.comparison}</Cell>
              <Cell label="Target">
                <code>{assertion.target}</code>
              </Cell>
              <Cell label="Actual">
                <code>
                  {typeof assertion.actual === 'string' ? assertion.actual : JSON.stringify(assertion.actual)}
                </code>
              </Cell>
            </Row>
          ))}
        </StackTable>
      </div>
    </Card>
  )
}

/** Figures of TCP, DNS and ICMP results: scalars as a list, assertions as a table, the rest as JSON. */
function FigureCard(props: { title: string; detail: Record<string, unknown> }) {
  const scalars: [string, ReactNode][] = []
  const nested: [string, unknown][] = []
  for (const [key, value] of Object.entries(props.detail)) {
    if (key === 'assertions') continue
    if (value === null || typeof value !== 'object') scalars.push([key, String(value ?? '—')])
    else nested.push([key, value])
  }
  const assertions = props.detail.assertions as AssertionResult[] | undefined
  return (
    <>
      <Card title={props.title}>
        <KeyValues rows={scalars} />
        {nested.map(([key, value]) => (
          <div key={key}>
            <h3>{key}</h3>
            <pre>{JSON.stringify(value, null, 2)}</pre>
          </div>
        ))}
      </Card>
      {assertions && assertions.length > 0 && <Assertions assertions={assertions} />}
    </>
  )
}
