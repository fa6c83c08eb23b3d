import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface Received {
  to: string[]
  headers: Record<string, string>
  body: string
}

/** A real SMTP server on loopback that keeps what it receives (or refuses every recipient). */
export async function startSmtp(options: { refuse?: boolean } = {}) {
  const received: Received[] = []
  const waiters: (() => void)[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (options.refuse)
        return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }))
      callback()
    },
    onData(stream, session, callback) {
      let raw = ''
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8')
      })
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), ...parseMessage(raw) })
        for (const wake of waiters.splice(0)) wake()
        callback()
      })
    },
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const port = (server.server.address() as AddressInfo).port
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Resolves once `count` messages arrived. */
    async waitFor(count: number) {
      while (received.length < count) await new Promise<void>((wake) => waiters.push(wake))
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

function parseMessage(raw: string): { headers: Record<string, string>; body: string } {
  const [head = '', ...rest] = raw.split('\r\n\r\n')
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = rest.join('\r\n\r\n')
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    body = Buffer.from(
      body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      'latin1',
    ).toString('utf8')
  }
  return { headers, body: body.replace(/\r\n/g, '\n') }
}
