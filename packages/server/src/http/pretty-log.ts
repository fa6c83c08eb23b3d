import { Writable } from 'node:stream'

/**
 * pino's JSON lines made readable for people at a terminal: one line each, `time LEVEL message key=value`,
 * an error's stack below it. Logs that go to files or collectors stay JSON (see config's LOG_FORMAT).
 */

const LEVELS: Record<number, { name: string; color: number }> = {
  10: { name: 'TRACE', color: 90 },
  20: { name: 'DEBUG', color: 36 },
  30: { name: 'INFO ', color: 32 },
  40: { name: 'WARN ', color: 33 },
  50: { name: 'ERROR', color: 31 },
  60: { name: 'FATAL', color: 35 },
}
/** Fields every line has, or that the line's own layout shows. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'err', 'req', 'res', 'responseTime'])

/** Exported because the tests format lines without a stream. */
export function formatLogLine(line: string, colors: boolean): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(line)
  } catch {
    return line
  }
  const paint = (code: number, text: string) => (colors ? `\x1b[${code}m${text}\x1b[0m` : text)
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level), color: 0 }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : ''
  const parts = [paint(90, time), paint(level.color, level.name), String(entry.msg ?? '')]
  const req = entry.req as { method?: string; url?: string } | undefined
  const res = entry.res as { statusCode?: number } | undefined
  if (req?.method) parts.push(`${req.method} ${req.url}`)
  if (res?.statusCode) parts.push(String(res.statusCode))
  if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(1)}ms`)
  for (const [key, value] of Object.entries(entry)) {
    if (SHOWN.has(key) || value === undefined) continue
    parts.push(paint(90, `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`))
  }
  const err = entry.err as { stack?: string; message?: string } | undefined
  const stack = err ? `\n    ${(err.stack ?? err.message ?? '').split('\n').join('\n    ')}` : ''
  return `${parts.filter(Boolean).join(' ')}${stack}\n`
}

/** A destination for pino that writes `formatLogLine`s to `out`. */
export function prettyLogStream(out: NodeJS.WritableStream & { isTTY?: boolean }): Writable {
  const colors = out.isTTY === true
  let pending = ''
  return new Writable({
    write(chunk, _encoding, done) {
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) if (line) out.write(formatLogLine(line, colors))
      done()
    },
  })
}
