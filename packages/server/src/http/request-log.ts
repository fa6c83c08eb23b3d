import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify'

/** Query parameters whose values are credentials (status page access, subscription links). */
const SECRET_QUERY = /([?&]token=)[^&#]*/gi
/** A heartbeat's ping token is its secret (API.md): whoever has it can make the heartbeat pass or fail. */
const PING_TOKEN = /^(\/ping\/)[^/?#]+/

/** The request as its log lines show it: Fastify's default fields, with credentials in the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.replace(SECRET_QUERY, '$1[REDACTED]').replace(PING_TOKEN, '$1[REDACTED]'),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}

/** The app's logger options with the request serializer above, whatever logger the caller chose. */
export function withRequestSerializer(
  logger: FastifyServerOptions['logger'] | undefined,
): FastifyServerOptions['logger'] {
  if (!logger) return false
  const options = logger === true ? {} : logger
  return { ...options, serializers: { req: serializeRequest, ...options.serializers } }
}

/**
 * One line per request, at `debug` (Fastify logs two at `info`): at the default level the start banner
 * and what goes wrong stay on screen instead of scrolling away under traffic. Errors keep their level.
 */
export class DebugRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (error) return super.requestCompleted(error, request, reply)
    reply.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
