import type { FastifyReply, FastifyRequest } from 'fastify'

/** A comment this often keeps a quiet stream under idle timeouts (the server's, more than 30 s, and proxies'). */
const KEEP_ALIVE_MS = 15_000

export interface EventStream {
  /** Sends one Server-Sent Event. */
  send(event: string, data: unknown): void
  /** Whether the client is still there. */
  isOpen(): boolean
  end(): void
}

/**
 * Takes the reply over as a Server-Sent Events stream (200, `text/event-stream`). Answer any 404 before
 * this: once the stream is open, errors can only be sent as events.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply): EventStream {
  reply.hijack()
  const raw = reply.raw
  raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-request-id': request.id,
  })
  let open = true
  const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS)
  raw.on('close', () => {
    open = false
    clearInterval(keepAlive)
  })
  return {
    send: (event, data) => {
      raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    isOpen: () => open,
    end: () => {
      clearInterval(keepAlive)
      raw.end()
    },
  }
}
