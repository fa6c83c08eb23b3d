import type { ReportRow } from './reporting.schemas.ts'

const HEADER = [
  'name',
  'checkId',
  'checkType',
  'deactivated',
  'tags',
  'from',
  'to',
  'successRatio',
  'avg',
  'p95',
  'p99',
]

/**
 * The report as CSV (RFC 4180): one line per check, or per check and bucket with `granularity`. Tags are
 * joined by spaces. A text cell that a spreadsheet would run as a formula (=, +, -, @) starts with `'`.
 */
export function reportCsv(rows: ReportRow[], window: { from: string; to: string }): string {
  const lines = [HEADER.join(',')]
  for (const row of rows) {
    const texts = [row.name, row.checkId, row.checkType, String(row.deactivated), row.tags.join(' ')]
    const periods = row.aggregates ?? [
      { ...window, ...(row.aggregate ?? { successRatio: 0, avg: 0, p95: 0, p99: 0 }) },
    ]
    for (const p of periods) {
      const cells = [
        ...texts.map(textCell),
        p.from,
        p.to,
        ...[p.successRatio, p.avg, p.p95, p.p99].map(String),
      ]
      lines.push(cells.join(','))
    }
  }
  return `${lines.join('\r\n')}\r\n`
}

function textCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}
