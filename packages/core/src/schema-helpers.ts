import { type Static, type TSchema, Type } from 'typebox'

/**
 * Schema building blocks that stay valid OpenAPI 3.0 (no `const`, no `type: 'null'`),
 * so every route schema can feed validation and `/openapi.json` alike.
 */

/** A string limited to `values`, typed as their union. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/** An integer limited to `values`, typed as their union. */
export function IntegerEnum<const T extends readonly number[]>(
  values: T,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<T[number]>({ type: 'integer', enum: [...values], ...options })
}

/** `schema` or null, written the OpenAPI 3.0 way (`nullable: true`). */
export function Nullable<T extends TSchema>(schema: T) {
  const enumValues = (schema as { enum?: unknown[] }).enum
  // Ajv (like OpenAPI 3.0) checks `enum` after `nullable`, so null must be one of the values.
  const withNull = enumValues ? { enum: [...enumValues, null] } : {}
  return Type.Unsafe<Static<T> | null>({ ...schema, ...withNull, nullable: true })
}

/** An object that rejects unknown properties: request bodies never drop fields silently. */
export function StrictObject<T extends Record<string, TSchema>>(
  properties: T,
  options: Record<string, unknown> = {},
) {
  return Type.Object(properties, { additionalProperties: false, ...options })
}

/** Matches a string holding at least one character that isn't whitespace (Unicode `\s`). */
export const NOT_BLANK_PATTERN = '\\S'

/**
 * A required name (of an account, check, group, page, …): 1 to `maxLength` characters, not all
 * whitespace (a blank name is a 400 `must not be blank`). Kept as sent otherwise.
 */
export const Name = (options: { maxLength: number } & Record<string, unknown>) =>
  Type.String({ minLength: 1, pattern: NOT_BLANK_PATTERN, ...options })

/** Every timestamp in every body is an ISO 8601 date-time in UTC. */
export const DateTime = (options: Record<string, unknown> = {}) =>
  Type.String({ format: 'date-time', ...options })

export const Uuid = (options: Record<string, unknown> = {}) => Type.String({ format: 'uuid', ...options })

/** The spec's error body, for every 4xx and 5xx. */
export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String(),
    message: Type.String(),
    attributes: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ErrorBody', title: 'Error' },
)
export type ErrorBody = Static<typeof ErrorBody>

/** The last page a list serves: its offset stays an exact integer both stores take (at most 10^9). */
export const MAX_PAGE = 10_000_000

/** `limit` and `page` of every list endpoint. */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page, 1 to 100.' }),
  ),
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, from 1.' }),
  ),
}

/** The largest value of a 32-bit integer column (PostgreSQL `integer`, `serial`). */
export const MAX_INT32 = 2_147_483_647

/** The id of a row numbered by the store (check groups, alert channels, maintenance windows). */
export const SerialId = (options: Record<string, unknown> = {}) =>
  Type.Integer({ minimum: 1, maximum: MAX_INT32, ...options })

/** 9999-12-31T23:59:59Z: the last unix second an ISO 8601 date-time (four-digit year) can show. */
export const MAX_UNIX_SECONDS = 253_402_300_799

/** A unix timestamp in seconds, bounded so it always converts to a date-time. */
export const UnixSeconds = (options: Record<string, unknown> = {}) =>
  Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS, description: 'Unix seconds.', ...options })

/** The error body as one documented response of a route, e.g. `409: ErrorResponse('Conflict: the key exists')`. */
export function ErrorResponse(description: string) {
  const {
    $id: _id,
    title: _title,
    ...shape
  } = ErrorBody as typeof ErrorBody & { $id?: string; title?: string }
  return { ...shape, description }
}
