import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestEngine } from '@svc/db/testing'
import { freePort } from '@svc/runner/testing'
import {
  deploymentEnv,
  type ServerProcess,
  startServerProcess,
} from '../../../server/src/testing/server-process.ts'

/** A real svc server for the dashboard's end-to-end tests, with the admin API on and a bearer client. */
export interface Deployment {
  url: string
  server: ServerProcess
  accountId: string
  /** The first API key (the owner's user key), for signing in with a key. */
  ownerKey: string
  /** Calls the API with the first (owner's) key, as a script would. */
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>
  stop(): Promise<void>
}

export async function startDeployment(engine: TestEngine): Promise<Deployment> {
  const store = await engine.createUrl()
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const adminToken = randomBytes(24).toString('hex')
  const env = {
    ...deploymentEnv(store.url),
    PORT: String(port),
    SVC_PUBLIC_URL: url,
    SVC_ADMIN_TOKEN: adminToken,
  }
  // A machine shared by many test runs can take longer than the default 30 s to start a server.
  const server = await startServerProcess(env)
  const request = async (authorization: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  const call = <T>(method: string, path: string, body?: unknown) =>
    request(`Bearer ${env.SVC_BOOTSTRAP_API_KEY}`, method, path, body) as Promise<{ status: number; body: T }>
  const admin = async <T>(method: string, path: string, body?: unknown) => {
    const answer = await request(`Bearer ${adminToken}`, method, path, body)
    if (answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body as T
  }
  const account = await call<{ id: string }>('GET', '/v1/accounts/me')
  return {
    url,
    server,
    accountId: account.body.id,
    ownerKey: env.SVC_BOOTSTRAP_API_KEY as string,
    call,
    admin,
    stop: async () => {
      await server.stop()
    },
  }
}

/** A local HTTP target whose answer the test switches between healthy and failing. */
export async function startTarget(): Promise<{
  url: string
  fail(value: boolean): void
  close(): Promise<void>
}> {
  let failing = false
  const server = createServer((_request, response) => {
    response.statusCode = failing ? 500 : 200
    response.end(failing ? 'down' : 'ok')
  })
  const url = await listen(server)
  return {
    url,
    fail: (value) => {
      failing = value
    },
    close: () => new Promise((done) => server.close(() => done())),
  }
}

/** A local webhook receiver: resolves `next()` with the next request's body. */
export async function startReceiver(): Promise<{
  url: string
  next(): Promise<string>
  close(): Promise<void>
}> {
  const bodies: string[] = []
  const waiters: ((body: string) => void)[] = []
  const server = createServer(async (request: IncomingMessage, response) => {
    let body = ''
    for await (const chunk of request) body += chunk
    response.end('ok')
    const waiter = waiters.shift()
    if (waiter) waiter(body)
    else bodies.push(body)
  })
  const url = await listen(server)
  return {
    url: `${url}/hook`,
    next: () => {
      const body = bodies.shift()
      return body !== undefined ? Promise.resolve(body) : new Promise((resolve) => waiters.push(resolve))
    },
    close: () => new Promise((done) => server.close(() => done())),
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
