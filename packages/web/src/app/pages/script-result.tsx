import { formatMs } from '../format.ts'
import { Cell, Row, StackTable, type TableColumn } from '../ui/table.tsx'
import { Card, Empty } from '../ui/ui.tsx'

interface Artifact {
  url?: string
  path?: string
  name?: string | null
}

function asArray<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : []
}

const NETWORK_COLUMNS: TableColumn[] = [{ label: 'Method' }, { label: 'URL' }, { label: 'Status' }]

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Browser, multi-step and suite results: tests and steps, logs, network, web vitals and artifacts. */
export function ScriptResult(props: { detail: Record<string, unknown> }) {
  const { detail } = props
  const errors = asArray<unknown>(detail.errors)
  const tests = asArray<Record<string, unknown>>(detail.tests)
  const pages = asArray<VitalsPage>(detail.pages)
  const videos = asArray<Artifact>(detail.videos)
  const traces = asArray<Artifact>(detail.traces)
  const traceUrl = typeof detail.traceUrl === 'string' ? detail.traceUrl : traces[0]?.url
  const logs = asArray<Record<string, unknown>>(detail.logs)
  const network = asArray<Record<string, unknown>>(detail.network)
  return (
    <>
      {errors.length > 0 && <ErrorsCard errors={errors} />}
      {tests.length > 0 && <TestsCard tests={tests} />}
      {pages.length > 0 && <WebVitalsCard pages={pages} />}
      <ScreenshotsCard screenshots={asArray<Artifact>(detail.screenshots)} />
      {(videos.length > 0 || traceUrl) && <VideoAndTraceCard videos={videos} traceUrl={traceUrl} />}
      {logs.length > 0 && <ConsoleCard logs={logs} />}
      {network.length > 0 && <NetworkCard network={network} />}
    </>
  )
}

type VitalsPage = { url: string; webVitals?: Record<string, { value: number; score: string } | null> }

function ErrorsCard(props: { errors: unknown[] }) {
  const { errors } = props
  return (
    <Card title="Errors">
      {errors.map((error, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: errors keep their order
        <pre key={index}>{text((error as { message?: unknown }).message ?? error)}</pre>
      ))}
    </Card>
  )
}

function TestsCard(props: { tests: Record<string, unknown>[] }) {
  return (
    <Card title="Tests and steps">
      <ul className="plain-list">
        {props.tests.map((test, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: tests keep their order
          <TestItem key={index} test={test} />
        ))}
      </ul>
    </Card>
  )
}

function TestItem(props: { test: Record<string, unknown> }) {
  const { test } = props
  const steps = asArray<Record<string, unknown>>(test.steps)
  return (
    <li>
      <strong>{text(test.title ?? test.name)}</strong>{' '}
      <span className={test.status === 'passed' ? 'pass-text' : 'fail-text'}>{text(test.status ?? '')}</span>{' '}
      <span className="muted">{formatMs(test.duration as number)}</span>
      {steps.length > 0 && (
        <ol>
          {steps.map((step, stepIndex) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: steps keep their order
            <li key={stepIndex}>
              {text(step.title)} <span className="muted">{formatMs(step.duration as number)}</span>
              {step.error ? <span className="fail-text"> {text(step.error)}</span> : null}
            </li>
          ))}
        </ol>
      )}
    </li>
  )
}

function WebVitalsCard(props: { pages: VitalsPage[] }) {
  const { pages } = props
  return (
    <Card title="Web vitals">
      {pages.map((page) => (
        <div key={page.url}>
          <p>
            <code>{page.url}</code>
          </p>
          <dl className="kv">
            {Object.entries(page.webVitals ?? {}).map(([name, vital]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>
                  {vital
                    ? `${name === 'CLS' ? vital.value.toFixed(3) : formatMs(vital.value)} · ${vital.score.toLowerCase().replace('_', ' ')}`
                    : '—'}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
    </Card>
  )
}

function ScreenshotsCard(props: { screenshots: Artifact[] }) {
  const { screenshots } = props
  return (
    <Card title="Screenshots">
      {screenshots.length === 0 ? (
        <Empty>No screenshots.</Empty>
      ) : (
        <div className="grid">
          {screenshots.map((shot, index) => (
            <figure key={shot.url ?? index} className="shot">
              <img
                className="screenshot"
                src={shot.url}
                alt={`Screenshot ${shot.name ?? index + 1}`}
                loading="lazy"
              />
              <figcaption className="muted">{shot.name ?? shot.path}</figcaption>
            </figure>
          ))}
        </div>
      )}
    </Card>
  )
}

function VideoAndTraceCard(props: { videos: Artifact[]; traceUrl: string | undefined }) {
  const { videos, traceUrl } = props
  return (
    <Card title="Video and trace">
      {videos.map((video) => (
        // biome-ignore lint/a11y/useMediaCaption: the recordings have no speech
        <video key={video.url} src={video.url} controls className="screenshot" />
      ))}
      {traceUrl && (
        <p>
          <a
            className="btn btn-primary"
            href={`/trace-viewer/?trace=${encodeURIComponent(new URL(traceUrl, location.href).href)}`}
            target="_blank"
            rel="noopener"
          >
            Open in the trace viewer
          </a>{' '}
          <a className="btn" href={traceUrl} download>
            Download Playwright trace
          </a>{' '}
          <span className="muted">
            The viewer is Playwright's own, served by svc; or open the file with{' '}
            <code>npx playwright show-trace trace.zip</code>.
          </span>
        </p>
      )}
    </Card>
  )
}

function ConsoleCard(props: { logs: Record<string, unknown>[] }) {
  const { logs } = props
  return (
    <Card title="Console">
      <pre>
        {logs
          .map((log) => `[${text(log.level ?? log.type ?? 'log')}] ${text(log.message ?? log.text ?? '')}`)
          .join('\n')}
      </pre>
    </Card>
  )
}

function NetworkCard(props: { network: Record<string, unknown>[] }) {
  const { network } = props
  return (
    <Card title="Network">
      <div className="table-wrap">
        <StackTable columns={NETWORK_COLUMNS}>
          {network.slice(0, 200).map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: network entries keep their order
            <Row key={index}>
              <Cell label="Method">{text(entry.method ?? '')}</Cell>
              <Cell label="URL">
                <code>{text(entry.url ?? '')}</code>
              </Cell>
              <Cell label="Status">{text(entry.status ?? entry.failure ?? '')}</Cell>
            </Row>
          ))}
        </StackTable>
      </div>
    </Card>
  )
}
