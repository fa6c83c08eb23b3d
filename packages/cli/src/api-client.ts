import type { Credentials } from './settings.ts'

/** A response of the server outside 2xx, with the spec's error body. */
export class ApiError extends Error {
  readonly status: number
  readonly body: { message?: string; attributes?: Record<string, unknown> } | undefined

  constructor(status: number, body: ApiError['body'], what: string) {
    super(`${what}: ${status} ${body?.message ?? ''}`.trim())
    this.status = status
    this.body = body
  }
}

export interface RequestOptions {
  body?: unknown
  query?: Record<string, string | number | boolean | undefined>
  /** Statuses answered as results instead of thrown (e.g. 408 of a completion that is still running). */
  accept?: number[]
}

export class ApiClient {
  readonly credentials: Credentials

  constructor(credentials: Credentials) {
    this.credentials = credentials
  }

  headers(): Record<string, string> {
    const { apiKey, accountId } = this.credentials
    if (!apiKey) throw new Error('No API key: run `svc login`, pass --api-key or set SVC_API_KEY')
    return {
      authorization: `Bearer ${apiKey}`,
      ...(accountId ? { 'x-svc-account': accountId } : {}),
      'user-agent': 'svc-cli',
    }
  }

  url(path: string, query: RequestOptions['query'] = {}): string {
    const url = new URL(`${this.credentials.apiUrl}${path}`)
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value))
    }
    return url.href
  }

  async request<T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<{ status: number; data: T }> {
    const headers = this.headers()
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetch(this.url(path, options.query), {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      })
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? String(error)
      throw new Error(`Can't reach ${this.credentials.apiUrl}: ${cause}`)
    }
    const text = await response.text()
    const data = text === '' ? undefined : parseJson(text)
    if (!response.ok && !options.accept?.includes(response.status)) {
      throw new ApiError(response.status, data as ApiError['body'], `${method} ${path}`)
    }
    return { status: response.status, data: data as T }
  }

  async get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return (await this.request<T>('GET', path, { query })).data
  }

  /** Every page of a list endpoint. */
  async list<T>(path: string, query: RequestOptions['query'] = {}): Promise<T[]> {
    const all: T[] = []
    for (let page = 1; ; page++) {
      const items = await this.get<T[]>(path, { ...query, limit: 100, page })
      all.push(...items)
      if (items.length < 100) return all
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return { message: text.slice(0, 200) }
  }
}
