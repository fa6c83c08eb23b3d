import type { ReactNode } from 'react'
import type { CheckType } from '../types.ts'
import { CheckboxInput, type Draft, NumberInput, SelectInput, TextInput } from '../ui/form-fields.tsx'
import { Card } from '../ui/ui.tsx'
import { BODY_TYPES, DNS_RECORD_TYPES, HEARTBEAT_UNITS, HTTP_METHODS } from './check-defaults.ts'

interface Bind {
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
}

/** The fields of each check type, with the API's bounds (core's CHECK_BODIES). */
export function TypeFields(props: { type: CheckType; bind: Bind }) {
  const Fields = TYPE_FIELDS[props.type]
  return Fields ? <Fields bind={props.bind} /> : null
}

function ApiFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Request">
      <div className="form-grid">
        <SelectInput {...bind} path="request.method" label="Method" options={HTTP_METHODS} />
        <TextInput
          {...bind}
          path="request.url"
          label="URL"
          type="url"
          required
          placeholder="https://api.example.com/health"
        />
        <SelectInput {...bind} path="request.bodyType" label="Body type" options={BODY_TYPES} />
      </div>
      <TextInput {...bind} path="request.body" label="Body" multiline />
      <div className="form-grid">
        <CheckboxInput {...bind} path="request.followRedirects" label="Follow redirects" />
        <CheckboxInput {...bind} path="request.skipSSL" label="Skip TLS verification" />
      </div>
      <ResponseTimes bind={bind} max={45_000} />
    </Card>
  )
}

function UrlFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Request">
      <TextInput
        {...bind}
        path="request.url"
        label="URL"
        type="url"
        required
        placeholder="https://example.com"
      />
      <div className="form-grid">
        <CheckboxInput {...bind} path="request.followRedirects" label="Follow redirects" />
        <CheckboxInput {...bind} path="request.skipSSL" label="Skip TLS verification" />
      </div>
      <ResponseTimes bind={bind} max={45_000} />
    </Card>
  )
}

function TcpFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Connection">
      <div className="form-grid">
        <TextInput {...bind} path="request.hostname" label="Host name" required />
        <NumberInput {...bind} path="request.port" label="Port" min={1} max={65535} />
      </div>
      <TextInput {...bind} path="request.data" label="Data to send" multiline />
      <ResponseTimes bind={bind} max={45_000} />
    </Card>
  )
}

function SslFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Certificate">
      <div className="form-grid">
        <TextInput {...bind} path="request.sslConfig.hostname" label="Host name" required />
        <NumberInput {...bind} path="request.sslConfig.port" label="Port" min={1} max={65535} />
        <NumberInput
          {...bind}
          path="request.sslConfig.alertDaysBeforeExpiry"
          label="Degraded this many days before expiry"
          min={1}
          max={365}
        />
        <TextInput
          {...bind}
          path="request.sslConfig.serverName"
          label="Server name (SNI)"
          hint="Empty: the host name."
        />
      </div>
      <CheckboxInput
        {...bind}
        path="request.sslConfig.skipChainValidation"
        label="Accept a certificate no trusted authority signed"
      />
      <ResponseTimes bind={bind} max={30_000} />
    </Card>
  )
}

function DnsFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Query">
      <div className="form-grid">
        <TextInput
          {...bind}
          path="request.query"
          label="Name to resolve"
          required
          placeholder="example.com"
        />
        <SelectInput {...bind} path="request.recordType" label="Record type" options={DNS_RECORD_TYPES} />
        <TextInput
          {...bind}
          path="request.nameServer"
          label="Name server"
          hint="Empty: the system resolver."
        />
        <NumberInput {...bind} path="request.port" label="Port" min={1} max={65535} />
        <SelectInput {...bind} path="request.protocol" label="Protocol" options={['UDP', 'TCP']} />
      </div>
      <ResponseTimes bind={bind} max={30_000} />
    </Card>
  )
}

function IcmpFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Ping">
      <div className="form-grid">
        <TextInput {...bind} path="request.hostname" label="Host name" required />
        <NumberInput {...bind} path="request.pingCount" label="Pings per run" min={1} max={50} />
        <NumberInput
          {...bind}
          path="degradedPacketLossThreshold"
          label="Degraded at packet loss (%)"
          min={0}
          max={100}
        />
        <NumberInput
          {...bind}
          path="maxPacketLossThreshold"
          label="Failing at packet loss (%)"
          min={0}
          max={100}
        />
      </div>
    </Card>
  )
}

function HeartbeatFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Expected pings">
      <div className="form-grid">
        <NumberInput {...bind} path="heartbeat.period" label="Period" min={1} />
        <SelectInput {...bind} path="heartbeat.periodUnit" label="Period unit" options={HEARTBEAT_UNITS} />
        <NumberInput {...bind} path="heartbeat.grace" label="Grace" min={0} />
        <SelectInput {...bind} path="heartbeat.graceUnit" label="Grace unit" options={HEARTBEAT_UNITS} />
      </div>
      <p className="hint">The ping URL appears on the check's page once it is saved.</p>
    </Card>
  )
}

function AutomationFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Suite">
      <div className="form-grid">
        <TextInput {...bind} path="scriptPath" label="Test file path" />
        <TextInput
          {...bind}
          path="playwrightConfigPath"
          label="Playwright config"
          placeholder="playwright.config.ts"
        />
        <TextInput {...bind} path="grep" label="Only tests matching" />
      </div>
    </Card>
  )
}

function BrowserFields(props: { bind: Bind }) {
  const { bind } = props
  return (
    <Card title="Browser">
      <TextInput
        {...bind}
        path="sslCheckDomain"
        label="TLS certificate to watch"
        hint="A host name; empty for none."
      />
    </Card>
  )
}

const TYPE_FIELDS: Partial<Record<CheckType, (props: { bind: Bind }) => ReactNode>> = {
  API: ApiFields,
  URL: UrlFields,
  TCP: TcpFields,
  SSL: SslFields,
  DNS: DnsFields,
  ICMP: IcmpFields,
  HEARTBEAT: HeartbeatFields,
  AUTOMATION: AutomationFields,
  BROWSER: BrowserFields,
}

function ResponseTimes(props: { bind: Bind; max: number }) {
  return (
    <div className="form-grid">
      <NumberInput
        {...props.bind}
        path="degradedResponseTime"
        label="Degraded after (ms)"
        min={0}
        max={props.max}
      />
      <NumberInput
        {...props.bind}
        path="maxResponseTime"
        label="Failing after (ms)"
        min={0}
        max={props.max}
      />
    </div>
  )
}
