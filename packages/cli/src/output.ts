import { styleText } from 'node:util'

type Style = Parameters<typeof styleText>[0]

/** How a command prints: JSON for scripts, text for people; colours only on a terminal. */
export class Output {
  readonly json: boolean
  readonly tty: boolean
  readonly lines: string[] = []
  private readonly write: (text: string) => void
  private readonly writeError: (text: string) => void

  constructor(options: {
    json: boolean
    tty: boolean
    write?: (text: string) => void
    writeError?: (text: string) => void
  }) {
    this.json = options.json
    this.tty = options.tty
    this.write = options.write ?? ((text) => process.stdout.write(text))
    this.writeError = options.writeError ?? ((text) => process.stderr.write(text))
  }

  /** `data` as JSON with --output json, else the human text. */
  result(data: unknown, human: () => string): void {
    this.write(this.json ? `${JSON.stringify(data, null, 2)}\n` : ensureNewline(human()))
  }

  /** A line of progress or explanation, kept off stdout in JSON mode so that stdout stays parseable. */
  info(text: string): void {
    if (this.json) this.writeError(ensureNewline(text))
    else this.write(ensureNewline(text))
  }

  error(text: string): void {
    this.writeError(ensureNewline(this.style('red', text)))
  }

  style(style: Style, text: string): string {
    return this.tty ? styleText(style, text, { validateStream: false }) : text
  }
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`
}

/** Rows as aligned columns under a header. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)].join('\n')
}
