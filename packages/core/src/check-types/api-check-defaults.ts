import { type Static, Type } from 'typebox'
import { Nullable, StrictObject } from '../schema-helpers.ts'
import { ApiRequest } from './api.ts'

/** The variable an API check's URL names its group's base URL by: `{{GROUP_BASE_URL}}/customers`. */
export const GROUP_BASE_URL = 'GROUP_BASE_URL'

/** What a check group gives each of its API checks (the hosted `apiCheckDefaults`). */
export const ApiCheckDefaults = StrictObject(
  {
    url: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2048,
          default: '',
          description: 'The base URL, which the group’s API checks name as {{GROUP_BASE_URL}}.',
        }),
      ),
    ),
    headers: ApiRequest.properties.headers,
    queryParameters: ApiRequest.properties.queryParameters,
    assertions: ApiRequest.properties.assertions,
    basicAuth: ApiRequest.properties.basicAuth,
  },
  { title: 'ApiCheckDefaults' },
)
export type ApiCheckDefaults = Static<typeof ApiCheckDefaults>

/** Every field present, so clients read one shape whatever was sent. */
export function completeApiCheckDefaults(defaults: ApiCheckDefaults | null | undefined) {
  return {
    url: defaults?.url ?? '',
    headers: defaults?.headers ?? [],
    queryParameters: defaults?.queryParameters ?? [],
    assertions: defaults?.assertions ?? [],
    basicAuth: defaults?.basicAuth?.username ? defaults.basicAuth : null,
  }
}

type KeyValue = { key: string; value: string; locked?: boolean }
interface RequestWithDefaults {
  headers?: KeyValue[]
  queryParameters?: KeyValue[]
  assertions?: unknown[]
  basicAuth?: { username: string; password: string } | null
}

/**
 * An API check's request with its group's defaults in it, as the hosted product applies them: the
 * group's headers and query parameters are added unless the check has one of the same name (headers
 * by name in any case), its assertions follow the check's, and its basic auth applies when the check
 * has none. The base URL is a variable, not a field (see GROUP_BASE_URL).
 */
export function applyApiCheckDefaults<R extends RequestWithDefaults>(
  request: R,
  defaults: ApiCheckDefaults | null | undefined,
): R {
  if (!defaults) return request
  const headers = request.headers ?? []
  const queryParameters = request.queryParameters ?? []
  const headerNames = new Set(headers.map((header) => header.key.toLowerCase()))
  const queryNames = new Set(queryParameters.map((parameter) => parameter.key))
  return {
    ...request,
    headers: [...headers, ...(defaults.headers ?? []).filter((h) => !headerNames.has(h.key.toLowerCase()))],
    queryParameters: [
      ...queryParameters,
      ...(defaults.queryParameters ?? []).filter((parameter) => !queryNames.has(parameter.key)),
    ],
    assertions: [...(request.assertions ?? []), ...(defaults.assertions ?? [])],
    basicAuth: request.basicAuth?.username
      ? request.basicAuth
      : defaults.basicAuth?.username
        ? defaults.basicAuth
        : (request.basicAuth ?? null),
  }
}
