import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { deploymentEnv, type ServerProcess, startServerProcess } from '../../testing/server-process.ts'

const CHECKS = 500
const GROUPS = 5

/** A project of 500 API checks in 5 groups; every name carries `version`. */
function bigProject(version: string) {
  const groups = Array.from({ length: GROUPS }, (_, g) => ({
    logicalId: `group-${g}`,
    type: 'check-group',
    payload: { name: `${version} group ${g}`, concurrency: 3 },
  }))
  const checks = Array.from({ length: CHECKS }, (_, c) => ({
    logicalId: `check-${c}`,
    type: 'check',
    payload: {
      checkType: 'API',
      name: `${version} check ${c}`,
      activated: false,
      groupId: { ref: `group-${c % GROUPS}` },
      request: { method: 'GET', url: `http://127.0.0.1:9/${c}` },
    },
  }))
  return { project: { logicalId: 'big', name: 'Big project' }, resources: [...groups, ...checks] }
}

for (const engine of testEngines()) {
  describe(`a server killed in the middle of a deployment on ${engine.engine}`, () => {
    let env: Record<string, string>
    let server: ServerProcess
    let dispose: () => Promise<void>
    before(async () => {
      const store = await engine.createUrl()
      dispose = store.dispose
      // A short lease, so that the restarted server finds the dead deployment failed within seconds.
      env = { ...deploymentEnv(store.url), SVC_DEPLOYMENT_LEASE_SECONDS: '3', SVC_RUNNER_LOCATIONS: 'none' }
      server = await startServerProcess(env)
    })
    after(async () => {
      await server?.stop()
      await dispose?.()
    })

    const call = async (method: string, path: string, body?: object) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${env.SVC_BOOTSTRAP_API_KEY}`,
          ...(body && { 'content-type': 'application/json' }),
        },
        body: body && JSON.stringify(body),
      })
      return { status: res.status, body: (await res.json()) as any }
    }
    /** The deployment once it ended (the completion long-poll answers 408 while it runs). */
    const ended = async (id: string) => {
      for (;;) {
        const res = await call('GET', `/v1/projects/big/deployments/${id}/completion?maxWaitSeconds=30`)
        if (res.status !== 408) {
          assert.equal(res.status, 200, JSON.stringify(res.body))
          return res.body
        }
      }
    }
    const namesOf = async (path: string) => {
      const names: string[] = []
      for (let page = 1; ; page++) {
        const res = await call('GET', `${path}?limit=100&page=${page}`)
        assert.equal(res.status, 200, JSON.stringify(res.body))
        names.push(...res.body.map((item: { name: string }) => item.name))
        if (res.body.length < 100) return names
      }
    }
    /** Every check and group carries one version's names: never a mix. */
    const versionOfState = async () => {
      const names = [...(await namesOf('/v1/checks')), ...(await namesOf('/v1/check-groups'))]
      assert.equal(names.length, CHECKS + GROUPS)
      const versions = new Set(names.map((name) => name.split(' ')[0]))
      assert.equal(versions.size, 1, `a mix of versions: ${[...versions].join(', ')}`)
      return [...versions][0]
    }

    test('SIGKILL while a deployment applies leaves the old state, and the deployment FAILED', async () => {
      const first = await call('POST', '/v1/projects/deploy?scheduleOnDeploy=false', bigProject('v1'))
      assert.equal(first.status, 202, JSON.stringify(first.body))
      assert.equal((await ended(first.body.id)).status, 'SUCCEEDED')
      assert.equal(await versionOfState(), 'v1')

      const second = await call('POST', '/v1/projects/deploy?scheduleOnDeploy=false', bigProject('v2'))
      assert.equal(second.status, 202, JSON.stringify(second.body))
      if (engine.engine === 'sqlite') await killWhileApplying(server)
      else await killPartWay(server, env, second.body.id)

      server = await startServerProcess(env)
      const failed = await ended(second.body.id)
      assert.equal(failed.status, 'FAILED')
      assert.match(failed.error.message, /stopped: nothing was applied/)
      assert.equal(await versionOfState(), 'v1')

      // The project isn't stuck: the same deploy again applies all of it.
      const again = await call('POST', '/v1/projects/deploy?scheduleOnDeploy=false', bigProject('v2'))
      assert.equal(again.status, 202, JSON.stringify(again.body))
      assert.equal((await ended(again.body.id)).status, 'SUCCEEDED')
      assert.equal(await versionOfState(), 'v2')
    })
  })
}

/** SIGKILL once the deployment's events say it is part way through its resources. */
async function killPartWay(server: ServerProcess, env: Record<string, string>, id: string) {
  const events = await fetch(`${server.url}/v1/projects/big/deployments/${id}/events`, {
    headers: { authorization: `Bearer ${env.SVC_BOOTSTRAP_API_KEY}` },
  })
  assert.equal(events.status, 200)
  let progressed = 0
  const decoder = new TextDecoder()
  let buffered = ''
  for await (const chunk of events.body as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true })
    const match = [...buffered.matchAll(/event: progress\ndata: \{"progress":(\d+)\}/g)].at(-1)
    progressed = Number(match?.[1] ?? 0)
    if (progressed > 0 && progressed < 100) break
    assert.doesNotMatch(buffered, /event: (complete|error)/, 'the deployment ended before the kill')
  }
  assert.ok(progressed > 0 && progressed < 100, `killed at ${progressed}%`)
  assert.equal(await server.stop('SIGKILL'), null)
}

/**
 * On SQLite the apply holds the store's only connection until it commits, so no request (not even the
 * key's check) is answered while it runs: SIGKILL once the server has spent CPU on it since the 202.
 */
async function killWhileApplying(server: ServerProcess) {
  const start = cpuTicksOf(server.child.pid as number)
  while (cpuTicksOf(server.child.pid as number) - start < 20) await new Promise((r) => setImmediate(r))
  assert.equal(await server.stop('SIGKILL'), null)
}

/** User and system CPU time of a process, in clock ticks (1/100 s). */
function cpuTicksOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return Number(fields[11]) + Number(fields[12])
}
