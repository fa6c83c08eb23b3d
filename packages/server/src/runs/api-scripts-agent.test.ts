import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { type AgentProcess, startAgentProcess } from '../testing/agent-process.ts'
import { deploymentEnv, type ServerProcess, startServerProcess } from '../testing/server-process.ts'

/** A real server and a real agent process: the agent runs an API check's scripts as the server does. */
for (const engine of testEngines()) {
  describe(`API check scripts on a private location's agent on ${engine.engine}`, () => {
    let store: { url: string; dispose(): Promise<void> }
    let server: ServerProcess
    let agent: AgentProcess | undefined
    let apiKey = ''
    let base = ''
    const tokens: (string | undefined)[] = []
    const target = createServer((request, response) => {
      tokens.push(request.headers['x-token'] as string | undefined)
      response.end('raw')
    })
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as any }
    }

    before(async () => {
      base = (await listenOnLoopback(target)).url
      store = await engine.createUrl()
      const env = deploymentEnv(store.url)
      apiKey = env.SVC_BOOTSTRAP_API_KEY
      server = await startServerProcess(env)
    })
    after(async () => {
      await agent?.stop('SIGKILL')
      await server?.stop('SIGKILL')
      target.close()
      await store?.dispose()
    })

    test('setup changes the request the agent sends; teardown the body its assertion reads', async () => {
      const location = (await call('POST', '/v1/private-locations', { name: 'Lab', slugName: 'lab' })).body
      const key = (await call('POST', `/v1/private-locations/${location.id}/keys`, {})).body
      agent = await startAgentProcess({ API_KEY: key.rawKey, SVC_API_URL: server.url, JOB_CONCURRENCY: '1' })
      const check = await call('POST', '/v1/checks/api', {
        name: 'scripted on an agent',
        activated: false,
        locations: [],
        privateLocations: ['lab'],
        doubleCheck: false,
        environmentVariables: [{ key: 'TOKEN', value: 'from-the-check' }],
        request: {
          url: `${base}/agent`,
          assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'changed' }],
        },
        localSetupScript: `request.headers['x-token'] = process.env.TOKEN; console.log('setup on', process.env.TOKEN)`,
        localTearDownScript: `response.body = 'changed'`,
      })
      assert.equal(check.status, 201, JSON.stringify(check.body))
      const result = await call('POST', `/v1/checks/${check.body.id}/trigger`)
      assert.equal(result.status, 200, JSON.stringify(result.body))
      assert.equal(result.body.runLocation, 'lab')
      assert.equal(result.body.hasFailures, false, JSON.stringify(result.body.apiCheckResult))
      assert.deepEqual(tokens, ['from-the-check'])
      assert.equal(result.body.apiCheckResult.response.body, 'changed')
      assert.deepEqual(
        result.body.apiCheckResult.jobLog.setup.map((line: { text: string }) => line.text),
        ['setup on from-the-check'],
      )
    })
  })
}
