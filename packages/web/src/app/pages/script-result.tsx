import { formatMs } from '../format.ts'
import { Card, Empty } from '../ui/ui.tsx'

interface Artifact {
  url?: string
  path?: string
  name?: string | null
}

function asArray<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : []
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Browser, multi-step and suite results: tests and steps, logs, network, web vitals and artifacts. */
export function ScriptResult(props: { detail: Record<string, unknown> }) {
  const { detail } = props
  const tests = asArray<Record<string, unknown>>(detail.tests)
  const errors = asArray<unknown>(detail.errors)
  const logs = asArray<Record<string, unknown>>(detail.logs)
  const network = asArray<Record<string, unknown>>(detail.network)
  const pages = asArray<{ url: string; webVitals?: Record<string, { value: number; score: string } | null> }>(
    detail.pages,
  )
  const screenshots = asArray<Artifact>(detail.screenshots)
  const videos = asArray<Artifact>(detail.videos)
  const traces = asArray<Artifact>(detail.traces)
  const traceUrl = typeof detail.traceUrl === 'string' ? detail.traceUrl : traces[0]?.url
  return (
    <>
      {errors.length > 0 && (
        <Card title="Errors">
          {errors.map((error, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: errors keep their order
            <pre key={index}>{text((error as { message?: unknown }).message ?? error)}</pre>
          ))}
        </Card>
      )}
      {tests.length > 0 && (
        <Card title="Tests and steps">
          <ul className="plain-list">
            {tests.map((test, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: tests keep their order
              <li key={index}>
                <strong>{text(test.title ?? test.name)}</strong>{' '}
                <span className={test.status === 'passed' ? 'pass-text' : 'fail-text'}>
                  {text(test.status ?? '')}
                </span>{' '}
                <span className="muted">{formatMs(test.duration as number)}</span>
                {asArray<Record<string, unknown>>(test.steps).length > 0 && (
                  <ol>
                    {asArray<Record<string, unknown>>(test.steps).map((step, stepIndex) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: steps keep their order
                      <li key={stepIndex}>
                        {text(step.title)} <span className="muted">{formatMs(step.duration as number)}</span>
                        {step.error ? <span className="fail-text"> {text(step.error)}</span> : null}
                      </li>
                    ))}
                  </ol>
                )}
              </li>
            ))}
          </ul>
        </Card>
      )}
      {pages.length > 0 && (
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
      )}
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
      {(videos.length > 0 || traceUrl) && (
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
      )}
      {logs.length > 0 && (
        <Card title="Console">
          <pre>
            {logs
              .map(
                (log) => `[${text(log.level ?? log.type ?? 'log')}] ${text(log.message ?? log.text ?? '')}`,
              )
              .join('\n')}
          </pre>
        </Card>
      )}
      {network.length > 0 && (
        <Card title="Network">
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Method</th>
                  <th scope="col">URL</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {network.slice(0, 200).map((entry, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: network entries keep their order
                  <tr key={index}>
                    <td>{text(entry.method ?? '')}</td>
                    <td>
                      <code>{text(entry.url ?? '')}</code>
                    </td>
                    <td>{text(entry.status ?? entry.failure ?? '')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Card>
      )}
    </>
  )
}
