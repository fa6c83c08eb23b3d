/** The public API, called with the session cookie, the CSRF token and the chosen account. */

export interface FieldError {
  path: string
  message: string
}

export class ApiError extends Error {
  readonly status: number
  readonly fieldErrors: FieldError[]
  readonly retryAfterSeconds: number | undefined
  constructor(status: number, message: string, fieldErrors: FieldError[] = [], retryAfterSeconds?: number) {
    super(message)
    this.status = status
    this.fieldErrors = fieldErrors
    this.retryAfterSeconds = retryAfterSeconds
  }
}

const state: { csrfToken: string | undefined; accountId: string | undefined } = {
  csrfToken: undefined,
  // The account chosen last time, so that reads made before the session is known (the overview's
  // prefetch) already name it.
  accountId: localStorage.getItem('svc.account') ?? undefined,
}

export function setSessionHeaders(csrfToken: string | undefined, accountId: string | undefined): void {
  state.csrfToken = csrfToken
  state.accountId = accountId
}

export interface Page<T> {
  items: T[]
  total: number
}

declare global {
  interface Window {
    /** Reads index.html started before this code loaded, by path (see index.html). */
    svcEarlyReads?: Record<string, Promise<Response> | undefined>
  }
}

/** The read index.html already started for `path`, once: later reads ask the server again. */
function takeEarlyRead(path: string): Promise<Response> | undefined {
  const early = window.svcEarlyReads?.[path]
  if (early && window.svcEarlyReads) window.svcEarlyReads[path] = undefined
  return early
}

async function send(method: string, path: string, body?: unknown): Promise<Response> {
  const early = method === 'GET' ? takeEarlyRead(path) : undefined
  if (early) {
    const response = await early
    if (!response.ok) throw await errorOf(response)
    return response
  }
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (state.accountId) headers['x-svc-account'] = state.accountId
  if (method !== 'GET' && state.csrfToken) headers['x-csrf-token'] = state.csrfToken
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!response.ok) throw await errorOf(response)
  return response
}

async function errorOf(response: Response): Promise<ApiError> {
  let parsed: { message?: string; attributes?: { errors?: FieldError[]; retryAfterSeconds?: number } } = {}
  try {
    parsed = await response.json()
  } catch {
    // Not the error shape (a proxy's page, say): the status text says enough.
  }
  return new ApiError(
    response.status,
    parsed.message ?? response.statusText ?? `HTTP ${response.status}`,
    parsed.attributes?.errors ?? [],
    parsed.attributes?.retryAfterSeconds,
  )
}

async function json<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T
  const text = await response.text()
  return (text ? JSON.parse(text) : undefined) as T
}

export const api = {
  get: async <T>(path: string): Promise<T> => json<T>(await send('GET', path)),
  post: async <T>(path: string, body?: unknown): Promise<T> => json<T>(await send('POST', path, body ?? {})),
  put: async <T>(path: string, body: unknown): Promise<T> => json<T>(await send('PUT', path, body)),
  patch: async <T>(path: string, body: unknown): Promise<T> => json<T>(await send('PATCH', path, body)),
  delete: async (path: string): Promise<void> => {
    await send('DELETE', path)
  },
  /** A list endpoint with its total from `content-range: items FIRST-LAST/TOTAL`. */
  page: async <T>(path: string): Promise<Page<T>> => {
    const response = await send('GET', path)
    const items = await json<T[]>(response)
    const total = Number(response.headers.get('content-range')?.split('/')[1] ?? items.length)
    return { items, total: Number.isFinite(total) ? total : items.length }
  },
}

/** A list's items: most lists answer an array; the hosted-style cursor pages wrap it (`entries`, `members`). */
export async function listOf<T>(path: string): Promise<T[]> {
  const body = await api.get<T[] | { entries?: T[]; members?: T[] }>(path)
  if (Array.isArray(body)) return body
  return body.entries ?? body.members ?? []
}

export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value))
  }
  const text = search.toString()
  return text ? `?${text}` : ''
}

/**
 * The API's messages for `field` (`cards.1.name`) and, unless `exact`, for what is inside it
 * (`cards.1` also takes `cards.1.services.0.id`).
 */
export function fieldErrorsFor(error: unknown, field: string, exact = false): string[] {
  if (!(error instanceof ApiError)) return []
  return error.fieldErrors
    .filter((entry) => {
      const path = formPathOf(entry)
      if (exact) return path === field
      return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`)
    })
    .map((entry) => entry.message)
}

/** The form's path of an API field error: `body.cards.1.name` and `/cards/1/name` are `cards.1.name`. */
export function formPathOf(entry: FieldError): string {
  return entry.path
    .replace(/^body[./]?/, '')
    .replace(/^\//, '')
    .replaceAll('/', '.')
}
