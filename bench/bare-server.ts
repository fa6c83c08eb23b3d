import Fastify from 'fastify'

/**
 * The ceiling for the benches: a bare Fastify route (ROUTE, default /v1/variables) answering a fixed
 * body given on stdin.
 */
const chunks: Buffer[] = []
for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
const body = Buffer.concat(chunks).toString('utf8')
const app = Fastify()
app.get(process.env.ROUTE ?? '/v1/variables', async (_request, reply) =>
  reply.type(process.env.CONTENT_TYPE ?? 'application/json').send(body),
)
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.stdout.write('ready\n')
