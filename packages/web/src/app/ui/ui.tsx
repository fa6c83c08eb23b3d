import { type ButtonHTMLAttributes, type ReactNode, useId } from 'react'
import { ApiError, fieldErrorsFor } from '../api.ts'
import type { CheckStatus } from '../types.ts'

const STATUS_LABELS: Record<CheckStatus, string> = {
  passing: 'Passing',
  degraded: 'Degraded',
  failing: 'Failing',
  paused: 'Paused',
  'no-data': 'No data',
}

export function StatusBadge(props: { status: CheckStatus }) {
  return (
    <span className={`status status-${props.status}`}>
      <span className="dot" aria-hidden="true" />
      {STATUS_LABELS[props.status]}
    </span>
  )
}

export function ResultBadge(props: { failed: boolean; degraded?: boolean }) {
  const status: CheckStatus = props.failed ? 'failing' : props.degraded ? 'degraded' : 'passing'
  return <StatusBadge status={status} />
}

/** An SVG line of hourly averages: one path per row keeps a 1,000-check table cheap to draw. */
export function Sparkline(props: { values: (number | null)[]; label: string }) {
  const width = 96
  const height = 24
  const numbers = props.values.filter((value): value is number => value !== null)
  if (numbers.length === 0) return <span className="muted">—</span>
  const max = Math.max(...numbers, 1)
  const step = width / Math.max(props.values.length - 1, 1)
  let path = ''
  let pen = false
  props.values.forEach((value, index) => {
    if (value === null) {
      pen = false
      return
    }
    const x = (index * step).toFixed(1)
    const y = (height - 2 - (value / max) * (height - 4)).toFixed(1)
    // A lone hour (no neighbours with data) is drawn as a dot: a zero-length line with round caps.
    const lone = !pen && (props.values[index + 1] ?? null) === null
    path += `${pen ? 'L' : 'M'}${x} ${y}${lone ? 'h0.01' : ''}`
    pen = true
  })
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img">
      <title>{props.label}</title>
      <path
        d={path}
        fill="none"
        stroke="currentColor"
        strokeWidth="1.5"
        strokeLinejoin="round"
        strokeLinecap="round"
      />
    </svg>
  )
}

export function Button(
  props: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'danger' | 'ghost' },
) {
  const { variant, className, ...rest } = props
  return (
    <button type="button" {...rest} className={`btn ${variant ? `btn-${variant}` : ''} ${className ?? ''}`} />
  )
}

export function Card(props: {
  title?: ReactNode
  actions?: ReactNode
  children: ReactNode
  className?: string
}) {
  return (
    <section className={`card ${props.className ?? ''}`}>
      {(props.title || props.actions) && (
        <header className="card-header">
          {props.title && <h2>{props.title}</h2>}
          {props.actions && <div className="actions">{props.actions}</div>}
        </header>
      )}
      <div className="card-body">{props.children}</div>
    </section>
  )
}

export function PageHeader(props: {
  title: ReactNode
  subtitle?: ReactNode
  actions?: ReactNode
  crumbs?: ReactNode
}) {
  return (
    <header className="page-header">
      <div>
        {props.crumbs && (
          <nav aria-label="Breadcrumb" className="crumbs">
            {props.crumbs}
          </nav>
        )}
        <h1>{props.title}</h1>
        {props.subtitle && <p className="subtitle">{props.subtitle}</p>}
      </div>
      {props.actions && <div className="actions">{props.actions}</div>}
    </header>
  )
}

export function ErrorBox(props: { error: unknown }) {
  if (!props.error) return null
  const message = props.error instanceof Error ? props.error.message : String(props.error)
  const status = props.error instanceof ApiError ? ` (${props.error.status})` : ''
  return (
    <div className="alert alert-error" role="alert">
      {message}
      {status}
    </div>
  )
}

export function Loading(props: { label?: string }) {
  return (
    <div className="loading" role="status">
      {props.label ?? 'Loading…'}
    </div>
  )
}

export function Empty(props: { children: ReactNode }) {
  return <div className="empty">{props.children}</div>
}

/** A labelled form field with the API's field-level errors under it. */
export function Field(props: {
  label: string
  name: string
  error?: unknown
  hint?: ReactNode
  children: (id: string, describedBy: string | undefined, invalid: boolean) => ReactNode
}) {
  const id = useId()
  const errors = fieldErrorsFor(props.error, props.name)
  const hintId = props.hint ? `${id}-hint` : undefined
  const errorId = errors.length ? `${id}-error` : undefined
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined
  return (
    <div className={`field ${errors.length ? 'field-invalid' : ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, describedBy, errors.length > 0)}
      {props.hint && (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {errorId && <FieldError id={errorId} name={props.name} errors={errors} />}
    </div>
  )
}

/**
 * The API's messages for one field, under it; the field names `id` in its `aria-describedby`. Editors
 * that draw their own inputs (a status page's cards, an incident's impacts) use it as `Field` does.
 */
export function FieldError(props: { id: string; name: string; errors: string[] }) {
  if (props.errors.length === 0) return null
  return (
    <p className="field-error" id={props.id} role="alert" data-field-error={props.name}>
      {props.errors.join('; ')}
    </p>
  )
}

export function CopyButton(props: { text: string; label: string }) {
  return (
    <Button
      className="btn-small"
      aria-label={props.label}
      onClick={(event) => {
        const button = event.currentTarget
        void navigator.clipboard?.writeText(props.text).then(
          () => {
            button.textContent = 'Copied'
            setTimeout(() => {
              button.textContent = 'Copy'
            }, 1500)
          },
          () => undefined,
        )
      }}
    >
      Copy
    </Button>
  )
}

export function KeyValues(props: { rows: [string, ReactNode][] }) {
  return (
    <dl className="kv">
      {props.rows.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}
