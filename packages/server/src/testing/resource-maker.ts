import assert from 'node:assert/strict'
import type { CHECK_PATHS } from '@svc/core'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { ArtifactStore } from '../context.ts'
import { json, type Tenant, type TestApp } from './test-app.ts'

/** A resource made in the account, as the route's path parameters name it. */
export interface Made {
  /** The value of each path parameter (`{id}`, `{checkId}`, `{*}`, ...). */
  ids: Record<string, string | number>
  /** Valid bodies of the path's writes, so that only the account decides the answer. */
  bodies?: Partial<Record<'POST' | 'PUT' | 'PATCH' | 'DELETE', object>>
  /** Where the account reads the resource back; default: the path itself. */
  readBack?: string
}

/** Makes resources through the API as the owner of one account. */
export class ResourceMaker {
  private made = 0
  readonly t: TestApp
  readonly owner: Tenant
  readonly artifacts: ArtifactStore

  constructor(t: TestApp, owner: Tenant, artifacts: ArtifactStore) {
    this.t = t
    this.owner = owner
    this.artifacts = artifacts
  }

  /** A name no other resource of the test has. */
  unique(prefix: string): string {
    return `${prefix}-${++this.made}`
  }

  async send(
    method: InjectOptions['method'],
    url: string,
    payload?: object,
  ): Promise<LightMyRequestResponse> {
    return this.t.call({ method, url, payload, as: this.owner })
  }

  /** Sends as the owner and answers the JSON of a 2xx response. */
  async ok(method: InjectOptions['method'], url: string, payload?: object): Promise<any> {
    const res = await this.send(method, url, payload)
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.body ? json(res) : undefined
  }

  check = async (type: keyof typeof CHECK_BODIES = 'api'): Promise<string> =>
    (await this.ok('POST', `/v1/checks/${type}`, CHECK_BODIES[type])).id

  /** An API check that ran once and failed (nothing listens on its port): a result and an error group. */
  async failedRun(): Promise<{ checkId: string; resultId: string }> {
    const checkId = await this.check('api')
    const result = await this.ok('POST', `/v1/checks/${checkId}/trigger`)
    return { checkId, resultId: result.id }
  }

  channel = async (): Promise<number> => (await this.ok('POST', '/v1/alert-channels', CHANNEL_BODY)).id

  statusPage = async (): Promise<string> =>
    (await this.ok('POST', '/v3/status-pages', { name: 'Page', url: this.unique('page'), cards: [] })).id

  /** A service shown on a new status page's card. */
  async pageWithService(): Promise<{ statusPageId: string; serviceId: string }> {
    const serviceId = (await this.ok('POST', '/v1/status-pages/services', { name: this.unique('svc') })).id
    const card = { name: 'Card', services: [{ id: serviceId }] }
    const page = await this.ok('POST', '/v3/status-pages', {
      name: 'Page',
      url: this.unique('page'),
      cards: [card],
    })
    return { statusPageId: page.id, serviceId }
  }

  /** An incident made in the hosted form, impacting a service of its page, with two updates. */
  async hostedIncident() {
    const { statusPageId, serviceId } = await this.pageWithService()
    const incident = await this.ok('POST', '/v1/status-pages/incidents', {
      name: 'Outage',
      severity: 'MAJOR',
      services: [{ id: serviceId }],
      incidentUpdates: [{ description: 'Looking' }, { description: 'Found it', status: 'IDENTIFIED' }],
    })
    return {
      statusPageId,
      serviceId,
      incidentId: incident.id as string,
      incidentUpdateId: incident.incidentUpdates[1].id as string,
    }
  }

  /** A pending email subscriber of a new status page, subscribed through the hosted bulk operation. */
  async subscription(): Promise<{ statusPageId: string; subscriptionId: string }> {
    const statusPageId = await this.statusPage()
    const subscriptions = [{ type: 'EMAIL', config: `${this.unique('reader')}@example.com` }]
    await this.ok('POST', `/v1/status-pages/${statusPageId}/subscriptions/bulk`, { subscriptions })
    const [subscription] = await this.ok('GET', `/v1/status-pages/${statusPageId}/subscriptions`)
    return { statusPageId, subscriptionId: subscription.id }
  }

  async incident(): Promise<{ statusPageId: string; incidentId: string; updateId: string }> {
    const statusPageId = await this.statusPage()
    const incident = await this.ok('POST', `/v3/status-pages/${statusPageId}/incidents`, INCIDENT_BODY)
    return { statusPageId, incidentId: incident.id, updateId: incident.incidentUpdates[0].id }
  }

  /**
   * A test session of one unsaved URL check, cancelled at once so that it has ended (no worker runs in
   * these tests): its ids and its one result's.
   */
  async testSession(): Promise<{ testSessionId: string; testSessionResultId: string }> {
    const session = await this.ok('POST', '/v1/test-sessions/run', {
      checkRunJobs: [{ checkType: 'URL', name: 'Unsaved', request: { url: 'http://127.0.0.1:9/' } }],
    })
    await this.ok('POST', `/v1/test-sessions/${session.testSessionId}/cancel`)
    return {
      testSessionId: session.testSessionId,
      testSessionResultId: session.results[0].testSessionResultId,
    }
  }

  /** A check session of a saved check, cancelled at once so that it has ended. */
  /** A dashboard with a customUrl of its own. */
  async dashboard(): Promise<{ id: number; dashboardId: string }> {
    return this.ok('POST', '/v1/dashboards', { header: 'Status', customUrl: this.unique('board') })
  }

  /** An incident of a new dashboard, with one update. */
  async dashboardIncident(): Promise<string> {
    const { id } = await this.dashboard()
    const body = {
      name: 'Outage',
      impact: 'MINOR',
      dashboardId: id,
      incidentUpdates: [{ status: 'INVESTIGATING' }],
    }
    return (await this.ok('POST', '/v1/incidents', body)).id
  }

  async checkSession(): Promise<string> {
    const checkId = await this.check('api')
    const { sessions } = await this.ok('POST', '/v1/check-sessions/trigger', {
      target: { checkId: [checkId] },
    })
    await this.ok('POST', `/v1/check-sessions/${sessions[0].checkSessionId}/cancel`)
    return sessions[0].checkSessionId
  }

  /** A project deployed (and its deployment finished), with the deployment's id. */
  async project(): Promise<{ logicalId: string; deploymentId: string }> {
    const logicalId = this.unique('project')
    const payload = {
      project: { logicalId, name: 'Project' },
      resources: [{ logicalId: 'group', type: 'check-group', payload: GROUP_BODY }],
    }
    const started = await this.ok('POST', '/v1/projects/deploy?scheduleOnDeploy=false', payload)
    const url = `/v1/projects/${logicalId}/deployments/${started.id}/completion?maxWaitSeconds=60`
    const done = await this.ok('GET', url)
    assert.equal(done.status, 'SUCCEEDED', JSON.stringify(done.error))
    return { logicalId, deploymentId: started.id }
  }

  /** An active heartbeat pinged once: its check id and the ping's result id. */
  async pingedHeartbeat(): Promise<{ checkId: string; id: string }> {
    const check = await this.ok('POST', '/v1/checks/heartbeat', {
      ...CHECK_BODIES.heartbeat,
      activated: true,
    })
    const token = check.heartbeat?.pingToken ?? check.pingToken
    const ping = await this.t.call({ method: 'GET', url: `/ping/${token}`, as: null })
    assert.equal(ping.statusCode, 200, ping.body)
    const [result] = await this.ok('GET', `/v1/check-results/${check.id}`)
    return { checkId: check.id, id: result.id }
  }

  privateLocation = async (): Promise<string> =>
    (await this.ok('POST', '/v1/private-locations', { name: 'Lab', slugName: this.unique('lab') })).id
}

const UNREACHABLE_URL = 'http://127.0.0.1:9/'

const SCRIPT = "const { test } = require('@playwright/test')\ntest('home', async ({ page }) => {})"

export const CHECK_BODIES = {
  api: { name: 'API', activated: false, request: { url: UNREACHABLE_URL, method: 'GET' } },
  url: { name: 'URL', activated: false, request: { url: UNREACHABLE_URL } },
  tcp: { name: 'TCP', activated: false, request: { hostname: '127.0.0.1', port: 9 } },
  dns: { name: 'DNS', activated: false, request: { query: 'example.com', recordType: 'A' } },
  icmp: { name: 'ICMP', activated: false, request: { hostname: '127.0.0.1' } },
  heartbeat: {
    name: 'Nightly job',
    activated: false,
    heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
  },
  browser: { name: 'Browser', activated: false, script: SCRIPT },
  multistep: { name: 'Multi', activated: false, script: SCRIPT },
  automation: {
    name: 'Suite',
    activated: false,
    dependencies: [
      { path: 'playwright.config.ts', content: 'export default {}' },
      { path: 'tests/a.spec.ts', content: SCRIPT },
    ],
  },
  ssl: { name: 'SSL', activated: false, request: { sslConfig: { hostname: '127.0.0.1', port: 9 } } },
} satisfies Record<keyof typeof CHECK_PATHS, object>

export const CHANNEL_BODY = { type: 'EMAIL', config: { address: 'ops@example.com' } }

export const GROUP_BODY = { name: 'Group', concurrency: 1 }

export const UPDATE_BODY = { description: 'Looking', status: 'INVESTIGATING' }

export const INCIDENT_BODY = { name: 'Outage', incidentUpdates: [UPDATE_BODY] }
