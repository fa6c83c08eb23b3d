import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'

const webhook = (extra: object = {}) => ({
  type: 'WEBHOOK',
  config: {
    name: 'Ops hook',
    url: 'https://hooks.example.com/alerts?check={{CHECK_ID}}',
    headers: [
      { key: 'X-Team', value: 'ops' },
      { key: 'Authorization', value: 'Bearer t0ken', locked: true },
    ],
    template: '{"title": "{{ALERT_TITLE}}"}',
    webhookSecret: 'shh-secret',
    ...extra,
  },
})

for (const engine of testEngines()) {
  describe(`alert channels API on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const post = (payload: object) => t.call({ method: 'POST', url: '/v1/alert-channels', payload })

    test('creates every type with integer ids and the defaults; secrets never come back', async () => {
      const res = await post(webhook())
      assert.equal(res.statusCode, 201)
      const channel = json(res)
      assert.equal(typeof channel.id, 'number')
      assert.equal(channel.type, 'WEBHOOK')
      assert.deepEqual(
        {
          sendRecovery: channel.sendRecovery,
          sendFailure: channel.sendFailure,
          sendDegraded: channel.sendDegraded,
          sslExpiry: channel.sslExpiry,
          sslExpiryThreshold: channel.sslExpiryThreshold,
        },
        {
          sendRecovery: true,
          sendFailure: true,
          sendDegraded: false,
          sslExpiry: false,
          sslExpiryThreshold: 30,
        },
      )
      assert.equal(channel.config.method, 'POST')
      assert.deepEqual(channel.config.headers, [
        { key: 'X-Team', value: 'ops', locked: false },
        { key: 'Authorization', value: '***masked***', locked: true },
      ])
      assert.equal('webhookSecret' in channel.config, false)
      assert.equal(JSON.stringify(channel).includes('shh-secret'), false)
      assert.equal(JSON.stringify(channel).includes('t0ken'), false)
      assert.equal(channel.warnings, undefined)

      for (const [type, config] of [
        ['EMAIL', { address: 'oncall@example.com' }],
        ['SLACK', { url: 'https://hooks.slack.test/T000/B000', channel: '#alerts' }],
        ['SMS', { number: '+15550001111', name: 'On call' }],
      ] as const) {
        const created = await post({ type, config, sendDegraded: true })
        assert.equal(created.statusCode, 201, created.body)
        assert.deepEqual(json(created).config, config)
        assert.equal(json(created).sendDegraded, true)
      }
      const list = await t.call({ method: 'GET', url: '/v1/alert-channels?limit=2' })
      assert.equal(list.headers['content-range'], 'items 0-1/4')
      assert.equal(
        json(await t.call({ method: 'GET', url: `/v1/alert-channels/${channel.id}` })).id,
        channel.id,
      )
    })

    test('a template that does not compile is 400 with its line and column', async () => {
      const res = await post(webhook({ template: '{\n  "a": "{{CHECK_NAME}"\n}' }))
      assert.equal(res.statusCode, 400)
      const body = json(res)
      assert.match(body.message, /^body\.config\.template does not compile: .*line 2, column 21/)
      assert.deepEqual(
        {
          path: body.attributes.errors[0].path,
          line: body.attributes.errors[0].line,
          column: body.attributes.errors[0].column,
        },
        { path: 'body.config.template', line: 2, column: 21 },
      )
      const url = await post(webhook({ url: 'https://x.test/{{#each}}' }))
      assert.equal(url.statusCode, 400)
      assert.equal(json(url).attributes.errors[0].path, 'body.config.url')
      const header = await post(
        webhook({ headers: [{ key: 'X', value: '{{#unknownThing A}}{{/unknownThing}}' }] }),
      )
      assert.equal(json(header).attributes.errors[0].path, 'body.config.headers.0.value')
      // A branch the sample event doesn't take (it has no certificate): refused at save all the same.
      const inline = await post(
        webhook({
          template: '{"ssl": "{{#if SSL_DAYS_REMAINING}}\n{{eq SSL_DAYS_REMAINING 1}}{{/if}}"}',
        }),
      )
      assert.equal(inline.statusCode, 400, inline.body)
      assert.deepEqual(json(inline).attributes.errors, [
        {
          path: 'body.config.template',
          message: 'does not compile: eq is a block helper: write {{#eq ...}}...{{/eq}} (line 2, column 1)',
          line: 2,
          column: 1,
        },
      ])
      const ftp = await post(webhook({ url: 'ftp://files.example.com/' }))
      assert.equal(json(ftp).attributes.errors[0].path, 'body.config.url')
      const badEmail = await post({ type: 'EMAIL', config: { address: 'not an address' } })
      assert.equal(json(badEmail).attributes.errors[0].path, 'body.config.address')
      const unknownField = await post({ type: 'SLACK', config: { url: 'https://x.test', extra: 1 } })
      assert.equal(unknownField.statusCode, 400)
    })

    test('a number placeholder closing a JSON object (`{{X}}}`) is 400 saying how to write it', async () => {
      const res = await post(webhook({ template: '{"title": "{{ALERT_TITLE}}", "ms": {{RESPONSE_TIME}}}' }))
      assert.equal(res.statusCode, 400, res.body)
      assert.deepEqual(json(res).attributes.errors, [
        {
          path: 'body.config.template',
          message:
            'does not compile: `}}}` closes a {{{raw}}} placeholder that was opened with `{{`: ' +
            'to close a JSON object right after a placeholder, put a space between (`{{NAME}} }`) (line 1, column 51)',
          line: 1,
          column: 51,
        },
      ])
      const spaced = await post(
        webhook({ template: '{"title": "{{ALERT_TITLE}}", "ms": {{RESPONSE_TIME}} }' }),
      )
      assert.equal(spaced.statusCode, 201, spaced.body)
    })

    test('a webhook URL that can never be one is 400; a base URL from a variable saves', async () => {
      for (const url of ['not a url', 'hooks.example.com/alerts', '{{CHECK_NAME}}', '/{{CHECK_ID}}']) {
        const res = await post(webhook({ url }))
        assert.equal(res.statusCode, 400, url)
        assert.deepEqual(json(res).attributes.errors, [
          {
            path: 'body.config.url',
            message: 'must be an http(s) URL (after its variables are filled in)',
          },
        ])
      }
      const fromVariable = await post(webhook({ url: '{{HOOK_BASE_URL}}/alerts?check={{CHECK_ID}}' }))
      assert.equal(fromVariable.statusCode, 201, fromVariable.body)
      assert.equal(json(fromVariable).config.url, '{{HOOK_BASE_URL}}/alerts?check={{CHECK_ID}}')
    })

    test('a webhook header name must be an HTTP token', async () => {
      for (const key of ['bad key', 'X-Team:', 'X-Ünïcode', 'X-A\r\nX-B']) {
        const res = await post(webhook({ headers: [{ key, value: 'v' }] }))
        assert.equal(res.statusCode, 400, key)
        assert.equal(json(res).attributes.errors[0].path, 'body.config.headers.0.key')
      }
      const ok = await post(webhook({ headers: [{ key: "X-Team_1.a!#$%&'*+^`|~", value: 'v' }] }))
      assert.equal(ok.statusCode, 201, ok.body)
      const query = await post(webhook({ queryParameters: [{ key: 'a key: any text', value: 'v' }] }))
      assert.equal(query.statusCode, 201, 'query parameter names are encoded, any text goes')
    })

    test('webhook headers that frame the request, or that the HTTP client would drop or refuse, are 400 naming why', async () => {
      for (const key of ['Content-Length', 'transfer-encoding', 'Expect', 'Keep-Alive', 'UPGRADE']) {
        const res = await post(
          webhook({
            headers: [
              { key: 'X-Team', value: 'ops' },
              { key, value: '5' },
            ],
          }),
        )
        assert.equal(res.statusCode, 400, key)
        assert.deepEqual(json(res).attributes.errors, [
          {
            path: 'body.config.headers.1.key',
            message: `${key} can't be set: svc frames each request itself`,
          },
        ])
      }
      const saved = {
        Connection: ['close', 'keep-alive', ' Close '],
        Host: ['hooks.example.com'],
        TE: ['trailers', 'Trailers'],
      }
      for (const [key, values] of Object.entries(saved)) {
        for (const value of values) {
          const res = await post(webhook({ headers: [{ key, value }] }))
          assert.equal(res.statusCode, 201, `${key}: ${value}: ${res.body}`)
        }
      }
      // Any other Connection value is dropped or cut by the HTTP client (`close, X-Foo` goes as `close`).
      for (const value of ['Upgrade', 'close, X-Foo', 'X-Foo', 'keep-alive, close', '{{CONNECTION}}']) {
        const res = await post(webhook({ headers: [{ key: 'Connection', value }] }))
        assert.equal(res.statusCode, 400, `${value}: ${res.body}`)
        assert.deepEqual(json(res).attributes.errors, [
          {
            path: 'body.config.headers.0.value',
            message:
              "Connection may only be close or keep-alive: svc's HTTP client manages connections itself, " +
              'sends one of these two and drops any other connection option, so this value would not be sent ' +
              'as written',
          },
        ])
      }
      // Connection-specific headers HTTP/2 forbids: its client refuses the request to a receiver speaking it.
      for (const key of ['Proxy-Connection', 'http2-settings']) {
        const res = await post(webhook({ headers: [{ key, value: 'keep-alive' }] }))
        assert.equal(res.statusCode, 400, `${key}: ${res.body}`)
        assert.deepEqual(json(res).attributes.errors, [
          {
            path: 'body.config.headers.0.key',
            message:
              `${key} can't be set: svc speaks HTTP/2 to servers that offer it, and HTTP/2 refuses ` +
              'connection-specific headers: every request to one would fail',
          },
        ])
      }
      for (const value of ['gzip', 'trailers, deflate', '{{TE}}']) {
        const res = await post(webhook({ headers: [{ key: 'TE', value }] }))
        assert.equal(res.statusCode, 400, `${value}: ${res.body}`)
        assert.deepEqual(json(res).attributes.errors, [
          {
            path: 'body.config.headers.0.value',
            message:
              'TE may only be trailers: svc speaks HTTP/2 to servers that offer it, and HTTP/2 refuses any ' +
              'other TE: every request to one would fail',
          },
        ])
      }
    })

    test('a Slack URL that does not parse is 400', async () => {
      for (const url of ['http://', 'https://hooks slack.test/T000', 'http://[::1']) {
        const res = await post({ type: 'SLACK', config: { url } })
        assert.equal(res.statusCode, 400, url)
        assert.deepEqual(json(res).attributes.errors, [
          { path: 'body.config.url', message: 'must be an http(s) URL' },
        ])
      }
    })

    test('a secret variable in a template saves with a warning', async () => {
      await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'API_TOKEN', value: 'v', secret: true },
      })
      await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'BASE', value: 'https://x.test' },
      })
      const res = await post(webhook({ template: '{"t": "{{API_TOKEN}}", "b": "{{BASE}}"}' }))
      assert.equal(res.statusCode, 201)
      assert.equal(json(res).warnings.length, 1)
      assert.match(json(res).warnings[0], /API_TOKEN, a secret variable/)
    })

    test('update replaces the config, keeps an omitted webhookSecret and masked locked values', async () => {
      const created = json(await post(webhook()))
      const res = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${created.id}`,
        payload: { type: 'WEBHOOK', config: { ...created.config, name: 'Renamed' }, sendDegraded: true },
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(json(res).config.name, 'Renamed')
      assert.equal(json(res).sendDegraded, true)
      const row = await t.store.db
        .selectFrom('alert_channels')
        .select('config')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
      const stored = JSON.parse(row.config)
      assert.equal(t.ctx.secretBox.decrypt(stored.sealedSecret), 'shh-secret')
      assert.equal(t.ctx.secretBox.decrypt(stored.headers[1].sealedValue), 'Bearer t0ken')
      assert.equal(row.config.includes('t0ken'), false)
      const cleared = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${created.id}`,
        payload: { type: 'WEBHOOK', config: { ...created.config, webhookSecret: null } },
      })
      assert.equal(cleared.statusCode, 200)
      const after = await t.store.db
        .selectFrom('alert_channels')
        .select('config')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow()
      assert.equal(JSON.parse(after.config).sealedSecret, null)
    })

    test('checks and groups subscribe to channels of their account only; the check shows its channels', async () => {
      const email = json(await post({ type: 'EMAIL', config: { address: 'a@example.com' } }))
      const hook = json(await post(webhook()))
      const unknown = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'x',
          request: { url: 'https://x.test' },
          alertChannelSubscriptions: [{ alertChannelId: 999_999, activated: true }],
        },
      })
      assert.equal(unknown.statusCode, 400)
      assert.equal(json(unknown).message, 'body.alertChannelSubscriptions unknown alert channel 999999')

      const other = await ownerOfAnotherAccount(t)
      const foreign = json(
        await t.call({
          as: other,
          method: 'POST',
          url: '/v1/alert-channels',
          payload: { type: 'EMAIL', config: { address: 'o@example.com' } },
        }),
      )
      const crossAccount = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'x',
          request: { url: 'https://x.test' },
          alertChannelSubscriptions: [{ alertChannelId: foreign.id, activated: true }],
        },
      })
      assert.equal(crossAccount.statusCode, 400)
      assert.equal((await t.call({ method: 'GET', url: `/v1/alert-channels/${foreign.id}` })).statusCode, 404)

      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/api?autoAssignAlerts=false',
          payload: {
            name: 'subscribed',
            request: { url: 'https://x.test' },
            alertChannelSubscriptions: [{ alertChannelId: email.id, activated: true }],
          },
        }),
      )
      assert.deepEqual(check.alertChannelSubscriptions, [{ alertChannelId: email.id, activated: true }])
      assert.deepEqual(check.alertChannels, {
        email: [{ address: 'a@example.com' }],
        webhook: [],
        slack: [],
        sms: [],
      })

      // The channel's endpoint edits the same subscriptions.
      const sub = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${hook.id}/subscriptions`,
        payload: { checkId: check.id, activated: true },
      })
      assert.equal(sub.statusCode, 200)
      assert.deepEqual({ ...json(sub), id: 0 }, { id: 0, checkId: check.id, groupId: null, activated: true })
      const read = json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` }))
      assert.equal(read.alertChannels.webhook.length, 1)
      assert.deepEqual(read.alertChannels.webhook[0], {
        name: 'Ops hook',
        url: 'https://hooks.example.com/alerts?check={{CHECK_ID}}',
        method: 'POST',
        headers: [
          { key: 'X-Team', value: 'ops', locked: false },
          { key: 'Authorization', value: '***masked***', locked: true },
        ],
        queryParameters: [],
      })
      assert.equal(
        json(await t.call({ method: 'GET', url: `/v1/alert-channels/${hook.id}` })).subscriptions[0].checkId,
        check.id,
      )

      // A merge update without the field keeps the subscriptions; one with it replaces them.
      const merged = json(
        await t.call({ method: 'PUT', url: `/v1/checks/${check.id}`, payload: { name: 'renamed' } }),
      )
      assert.equal(merged.alertChannelSubscriptions.length, 2)
      const replaced = json(
        await t.call({
          method: 'PUT',
          url: `/v1/checks/${check.id}`,
          payload: { alertChannelSubscriptions: [{ alertChannelId: hook.id, activated: false }] },
        }),
      )
      assert.deepEqual(replaced.alertChannelSubscriptions, [{ alertChannelId: hook.id, activated: false }])
      assert.deepEqual(replaced.alertChannels.webhook, [])

      const both = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${hook.id}/subscriptions`,
        payload: { checkId: check.id, groupId: 1, activated: true },
      })
      assert.equal(both.statusCode, 400)

      // Groups: their subscriptions alert for their checks too.
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: { name: 'g', alertChannelSubscriptions: [{ alertChannelId: email.id, activated: true }] },
        }),
      )
      assert.deepEqual(group.alertChannelSubscriptions, [{ alertChannelId: email.id, activated: true }])
      const member = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/api?autoAssignAlerts=false',
          payload: { name: 'member', groupId: group.id, request: { url: 'https://x.test' } },
        }),
      )
      assert.deepEqual(member.alertChannelSubscriptions, [])
      assert.deepEqual(member.alertChannels.email, [{ address: 'a@example.com' }])

      // Deleting a channel ends its subscriptions.
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/alert-channels/${email.id}` })).statusCode,
        204,
      )
      assert.deepEqual(
        json(await t.call({ method: 'GET', url: `/v1/check-groups/${group.id}` })).alertChannelSubscriptions,
        [],
      )
      assert.equal((await t.call({ method: 'GET', url: `/v1/alert-channels/${email.id}` })).statusCode, 404)
    })

    test("a channel's hosted `subscriptions`: set with it, replaced by an update naming them, kept by one that doesn't", async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/api?autoAssignAlerts=false',
          payload: { name: 'watched', request: { url: 'https://x.test' } },
        }),
      )
      const group = json(
        await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name: 'watched' } }),
      )
      const created = await post({
        ...webhook(),
        subscriptions: [
          { checkId: check.id, groupId: null, activated: true },
          { groupId: group.id, activated: false },
        ],
      })
      assert.equal(created.statusCode, 201, created.body)
      const channel = json(created)
      const shown = (
        subscriptions: { checkId: string | null; groupId: number | null; activated: boolean }[],
      ) => subscriptions.map(({ checkId, groupId, activated }) => ({ checkId, groupId, activated }))
      assert.deepEqual(shown(channel.subscriptions), [
        { checkId: check.id, groupId: null, activated: true },
        { checkId: null, groupId: group.id, activated: false },
      ])
      const read = json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` }))
      assert.deepEqual(read.alertChannelSubscriptions, [{ alertChannelId: channel.id, activated: true }])

      const put = (payload: object) =>
        t.call({ method: 'PUT', url: `/v1/alert-channels/${channel.id}`, payload })
      const kept = json(await put({ ...webhook(), sendDegraded: true }))
      assert.equal(kept.subscriptions.length, 2)
      const replaced = json(
        await put({ ...webhook(), subscriptions: [{ groupId: group.id, activated: true }] }),
      )
      assert.deepEqual(shown(replaced.subscriptions), [{ checkId: null, groupId: group.id, activated: true }])
      assert.deepEqual(
        json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` })).alertChannelSubscriptions,
        [],
      )

      // Bad entries are a 400 naming the entry, and change nothing: the channel and its list stay.
      const cases: [object, string][] = [
        [{ checkId: check.id, groupId: group.id, activated: true }, 'body.subscriptions.1'],
        [{ activated: true }, 'body.subscriptions.1'],
        [
          { checkId: '00000000-0000-4000-8000-000000000000', activated: true },
          'body.subscriptions.1.checkId',
        ],
        [{ groupId: 987654, activated: true }, 'body.subscriptions.1.groupId'],
      ]
      for (const [entry, path] of cases) {
        const bad = await put({
          ...webhook(),
          subscriptions: [{ checkId: check.id, activated: true }, entry],
        })
        assert.equal(bad.statusCode, 400, bad.body)
        assert.equal(json(bad).attributes.errors[0].path, path)
      }
      const badCreate = await post({
        ...webhook({ name: 'never made' }),
        subscriptions: [{ activated: true }],
      })
      assert.equal(badCreate.statusCode, 400)
      const channels = json(await t.call({ method: 'GET', url: '/v1/alert-channels?limit=100' }))
      assert.equal(
        channels.some((c: { config: { name?: string } }) => c.config.name === 'never made'),
        false,
      )
      assert.deepEqual(
        shown(json(await t.call({ method: 'GET', url: `/v1/alert-channels/${channel.id}` })).subscriptions),
        [{ checkId: null, groupId: group.id, activated: true }],
      )
    })

    test('a subscription saved while its check or channel is deleted: the usual 400 or 404, not 409', async () => {
      const channel = json(await post(webhook()))
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/tcp?autoAssignAlerts=false',
          payload: { name: 'going', activated: false, request: { hostname: '127.0.0.1', port: 9 } },
        }),
      )
      const subscribe = (channelId: number) => () =>
        t.call({
          method: 'PUT',
          url: `/v1/alert-channels/${channelId}/subscriptions`,
          payload: { checkId: check.id, activated: true },
        })
      // Each deletion waits where it deletes what names its row; the subscription found both, then waits.
      const checkGone = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        () => t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` }),
        subscribe(channel.id),
      ])
      const other = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/tcp?autoAssignAlerts=false',
          payload: { name: 'staying', activated: false, request: { hostname: '127.0.0.1', port: 9 } },
        }),
      )
      const channelGone = await inTurnWhileHeld(t.ctx, holdingTable('alert_notifications'), [
        () => t.call({ method: 'DELETE', url: `/v1/alert-channels/${channel.id}` }),
        () =>
          t.call({
            method: 'PUT',
            url: `/v1/alert-channels/${channel.id}/subscriptions`,
            payload: { checkId: other.id, activated: true },
          }),
      ])
      assert.deepEqual(
        [...checkGone, ...channelGone].map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [400, `body.checkId check ${check.id} not found`],
          [204, ''],
          [404, `Alert channel ${channel.id} not found`],
        ],
      )
      const subscriptions = await t.store.db
        .selectFrom('alert_subscriptions')
        .select('id')
        .where('channel_id', '=', channel.id)
        .execute()
      assert.deepEqual(subscriptions, [])
    })

    test('autoAssignAlerts (default true) subscribes a new check to every channel', async () => {
      const ids = json(await t.call({ method: 'GET', url: '/v1/alert-channels?limit=100' })).map(
        (c: { id: number }) => c.id,
      )
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'auto', request: { url: 'https://x.test' } },
        }),
      )
      assert.deepEqual(
        check.alertChannelSubscriptions.map((s: { alertChannelId: number }) => s.alertChannelId).sort(),
        [...ids].sort(),
      )
      assert.ok(check.alertChannelSubscriptions.every((s: { activated: boolean }) => s.activated))
      const none = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url?autoAssignAlerts=false',
          payload: { name: 'manual', request: { url: 'https://x.test' } },
        }),
      )
      assert.deepEqual(none.alertChannelSubscriptions, [])
    })
  })
}
