import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { startReceiver } from '../alerting/testing.ts'

const CONTROL_CHARACTER_MESSAGE =
  "Authorization can't be sent: its value holds a control character (such as a line break or NUL), " +
  "which HTTP can't carry in a header (a tab can)"

for (const engine of testEngines()) {
  describe(`webhook channel header values, on ${engine.engine}`, () => {
    let t: TestApp
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    before(async () => {
      receiver = await startReceiver()
      t = await createTestApp(engine)
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    const webhook = (name: string, headers: { key: string; value: string; locked?: boolean }[]) => ({
      type: 'WEBHOOK',
      config: { name, url: `${receiver.url}/hook`, headers, template: '{"type": "{{ALERT_TYPE}}"}' },
    })
    const channelNames = async () =>
      (
        json(await t.call({ method: 'GET', url: '/v1/alert-channels' })) as { config: { name: string } }[]
      ).map((channel) => channel.config.name)
    /** The bytes a real HTTP/1 server got for `name` (Node hands them over one byte a character). */
    const bytesOf = (headers: Record<string, unknown> | undefined, name: string) =>
      Buffer.from(String(headers?.[name]), 'latin1')
    async function sendTest(id: number) {
      receiver.received.length = 0
      const sent = json(await t.call({ method: 'POST', url: `/v1/alert-channels/${id}/test` }))
      assert.equal(sent.deliveryStatus, 'DELIVERED', JSON.stringify(sent.lastResponse))
      assert.equal(receiver.received.length, 1)
      return receiver.received[0]?.headers
    }

    test('a value with a control character is a 400 at create and update naming the header, as for checks; nothing saved', async () => {
      for (const value of ['Bearer t0ken\n', 'a\r\nX-Injected: 1', 'a\u0007b', 'a\u007fb']) {
        for (const locked of [false, true]) {
          const created = await t.call({
            method: 'POST',
            url: '/v1/alert-channels',
            payload: webhook('refused', [
              { key: 'X-Team', value: 'ops' },
              { key: 'Authorization', value, locked },
            ]),
          })
          assert.equal(created.statusCode, 400, created.body)
          assert.deepEqual(json(created), {
            statusCode: 400,
            error: 'Bad Request',
            message: `body.config.headers.1.value ${CONTROL_CHARACTER_MESSAGE}`,
            attributes: {
              errors: [{ path: 'body.config.headers.1.value', message: CONTROL_CHARACTER_MESSAGE }],
            },
          })
        }
      }
      // NUL, which no text the API takes may hold, is refused by the schema there first.
      const nul = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: webhook('refused', [{ key: 'Authorization', value: 'a\u0000b' }]),
      })
      assert.equal(nul.statusCode, 400, nul.body)
      assert.equal(json(nul).attributes.errors[0].path, 'body.config.headers.0.value')
      assert.equal((await channelNames()).includes('refused'), false)

      const saved = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: webhook('kept', [{ key: 'Authorization', value: 'Bearer t0ken\twith a tab' }]),
      })
      assert.equal(saved.statusCode, 201, saved.body)
      const id = json(saved).id as number
      const updated = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${id}`,
        payload: webhook('renamed', [{ key: 'Authorization', value: 'Bearer t0ken\r\n' }]),
      })
      assert.equal(updated.statusCode, 400, updated.body)
      assert.deepEqual(json(updated).attributes.errors, [
        { path: 'body.config.headers.0.value', message: CONTROL_CHARACTER_MESSAGE },
      ])
      const stored = json(await t.call({ method: 'GET', url: `/v1/alert-channels/${id}` }))
      assert.equal(stored.config.name, 'kept')
      assert.deepEqual(stored.config.headers, [
        { key: 'Authorization', value: 'Bearer t0ken\twith a tab', locked: false },
      ])
    })

    test('control characters stored before the rule, or brought in by a variable, still go as one space each run', async () => {
      const variable = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'PASTED_NOTE', value: 'pasted\r\nwith its line break' },
      })
      assert.equal(variable.statusCode, 201, variable.body)
      const created = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: webhook('variable', [{ key: 'X-Note', value: '{{PASTED_NOTE}}' }]),
      })
      assert.equal(created.statusCode, 201, created.body)
      const id = json(created).id as number
      assert.equal((await sendTest(id))?.['x-note'], 'pasted with its line break')

      // As a version before the rule stored it.
      const row = await t.store.db
        .selectFrom('alert_channels')
        .select('config')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      const config = JSON.parse(row.config)
      config.headers = [{ key: 'X-Note', value: 'a\u0007b\u007fc\td\r\ne', sealedValue: null, locked: false }]
      await t.store.db
        .updateTable('alert_channels')
        .set({ config: JSON.stringify(config) })
        .where('id', '=', id)
        .execute()
      assert.equal((await sendTest(id))?.['x-note'], 'a b c\td e')
    })

    test('values go as their UTF-8 bytes, Latin-1 text alone (é) too, as curl sends them', async () => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: webhook('accents', [
          { key: 'X-Accent', value: 'é' },
          { key: 'X-Mixed', value: 'é €' },
          { key: 'X-City', value: 'Zürich', locked: true },
          { key: 'X-Plain', value: 'ops' },
        ]),
      })
      assert.equal(created.statusCode, 201, created.body)
      const headers = await sendTest(json(created).id)
      assert.deepEqual(bytesOf(headers, 'x-accent'), Buffer.from([0xc3, 0xa9]))
      assert.deepEqual(bytesOf(headers, 'x-mixed'), Buffer.from('é €', 'utf8'))
      assert.deepEqual(bytesOf(headers, 'x-city'), Buffer.from('Zürich', 'utf8'))
      assert.equal(headers?.['x-plain'], 'ops')
    })
  })
}
