import type { Check } from '../types.ts'
import { Card, CopyButton } from '../ui/ui.tsx'

export function HeartbeatPanel(props: { check: Check }) {
  const heartbeat = props.check.heartbeat
  // Top-level on svc's answer; inside `heartbeat` where the hosted product's clients read it.
  const url = (props.check.pingUrl as string | undefined) ?? heartbeat?.pingUrl
  if (!heartbeat || !url) return null
  const curl = `curl -fsS -m 10 --retry 3 ${url}`
  const cron = `*/5 * * * * /path/to/job.sh && curl -fsS -m 10 --retry 3 ${url}`
  const fail = `curl -fsS -m 10 ${url}/fail`
  return (
    <Card title="Ping URL">
      <p className="muted">
        Expected every {heartbeat.period} {heartbeat.periodUnit}, with {heartbeat.grace} {heartbeat.graceUnit}{' '}
        of grace. A ping resets the clock; a ping to <code>/fail</code> fails the check at once.
      </p>
      {[
        ['Ping URL', url],
        ['curl', curl],
        ['cron', cron],
        ['Report a failure', fail],
      ].map(([label, text]) => (
        <div key={label} className="copy-row">
          <span className="copy-label">{label}</span>
          <code data-copy={label}>{text}</code>
          <CopyButton text={text as string} label={`Copy ${label}`} />
        </div>
      ))}
    </Card>
  )
}
