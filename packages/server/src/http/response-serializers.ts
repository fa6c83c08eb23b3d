import fastJsonStringify from 'fast-json-stringify'
import type { FastifyInstance } from 'fastify'
import { compiledOnce, compiledOnFirstUse } from './compiled-schemas.ts'

type Serializer = (data: unknown) => string

const serializerOf = compiledOnce((schema) =>
  compiledOnFirstUse(() => fastJsonStringify(schema) as Serializer),
)

/** Response serializers compiled once per process (see compiled-schemas.ts), not once per app. */
export function installSerializers(app: FastifyInstance): void {
  app.setSerializerCompiler(({ schema }) => serializerOf(schema as object))
}
