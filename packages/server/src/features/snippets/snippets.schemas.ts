import { Name, Nullable, PageQuery, SerialId, StrictObject } from '@svc/core'
import { type Static, Type } from 'typebox'

const SnippetName = Name({ maxLength: 255, description: 'The snippet name.' })
const SnippetScript = Type.String({
  minLength: 1,
  maxLength: 1_000_000,
  description: 'Node.js code: setup or teardown of API checks, or a partial that browser checks import.',
})

/** The hosted product's snippet record (its field names, `created_at` and `updated_at` included). */
export const Snippet = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    script: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Snippet' },
)
export type Snippet = Static<typeof Snippet>

export const SnippetBody = StrictObject({ name: SnippetName, script: SnippetScript })
export type SnippetBody = Static<typeof SnippetBody>

export const SnippetIdParams = StrictObject({ id: SerialId() })

export const ListSnippetsQuery = StrictObject({ ...PageQuery })
