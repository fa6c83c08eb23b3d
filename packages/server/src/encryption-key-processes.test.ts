import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { createDb } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { startHeaderRecorder } from '@svc/runner/testing'
import { keyFingerprint, sealingKeyId } from './crypto/secret-box.ts'
import { findVerifier } from './features/encryption-keys/encryption-keys.repo.ts'
import { createSealedValues, rawSealedValues, SECRETS } from './testing/sealed-values.ts'
import { deploymentEnv, type ServerProcess, startServerProcess } from './testing/server-process.ts'

const RESET_MAIN = resolve(import.meta.dirname, 'encryption-reset-main.ts')

/** Runs `npm run encryption-reset` (its entry) with `env`; gives its output. */
async function runEncryptionReset(env: Record<string, string>, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', RESET_MAIN, ...args],
    { env: { ...process.env, ...env } },
  )
  return stdout
}

/** The real `main.ts` checks its encryption key against the store, and rotates to a new one. */
for (const engine of testEngines()) {
  describe(`encryption keys of server processes on ${engine.engine}`, () => {
    let recorder: Awaited<ReturnType<typeof startHeaderRecorder>>
    before(async () => {
      recorder = await startHeaderRecorder()
    })
    after(() => recorder.close())

    const api = (server: ServerProcess, apiKey: string) => ({
      async post(path: string, payload: object) {
        const res = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        })
        return { status: res.status, body: await res.text() }
      },
    })

    /** The start's output when it was refused; fails when the process started. */
    const refusedStart = async (env: Record<string, string>) => {
      let started: ServerProcess | undefined
      try {
        started = await startServerProcess(env)
      } catch (error) {
        return (error as Error).message
      }
      await started.stop('SIGKILL')
      assert.fail('the server started')
    }

    test('a wrong key stops the start naming the expected and the given key; the right key starts', async () => {
      const store = await engine.createUrl()
      const env = deploymentEnv(store.url)
      const right = Buffer.from(env.SVC_ENCRYPTION_KEY, 'hex')
      const wrong = randomBytes(32)
      let server: ServerProcess | undefined
      try {
        server = await startServerProcess(env)
        const created = await api(server, env.SVC_BOOTSTRAP_API_KEY).post('/v1/variables', {
          key: 'TOKEN',
          value: 'hunter2',
          secret: true,
        })
        assert.equal(created.status, 201, created.body)
        assert.equal(await server.stop(), 0)

        const refused = await refusedStart({ ...env, SVC_ENCRYPTION_KEY: wrong.toString('hex') })
        assert.match(refused, /exited with 1 before it was ready/)
        assert.match(
          refused,
          new RegExp(
            `svc: the encryption key does not open this store's locked and secret values: the store expects the key with fingerprint ${keyFingerprint(right)}\\.`,
          ),
        )
        assert.match(
          refused,
          new RegExp(`This node has SVC_ENCRYPTION_KEY \\(fingerprint ${keyFingerprint(wrong)}\\)`),
        )
        assert.match(refused, /set SVC_ENCRYPTION_KEY to the expected key/)
        assert.match(refused, /npm run encryption-reset/)
        assert.doesNotMatch(refused, /\n\s+at /, 'no stack trace')
        assert.equal(refused.includes(wrong.toString('hex')), false)

        // Without any key (and no key file), a store with sealed values doesn't get a new key made.
        const { SVC_ENCRYPTION_KEY: _key, ...keyless } = env
        const noKey = await refusedStart(keyless)
        assert.match(
          noKey,
          new RegExp(
            `svc: no encryption key: SVC_ENCRYPTION_KEY is unset and there is no ${join((env as Record<string, string>).SVC_DATA_DIR ?? '', 'encryption.key')}, but this store's values are sealed with the key with fingerprint ${keyFingerprint(right)}`,
          ),
        )

        server = await startServerProcess(env)
        const list = await fetch(`${server.url}/v1/variables`, {
          headers: { authorization: `Bearer ${env.SVC_BOOTSTRAP_API_KEY}` },
        })
        assert.equal(list.status, 200)
      } finally {
        await server?.stop('SIGKILL')
        await store.dispose()
      }
    })

    test('rotation: the new key with the old one as previous re-seals every value in the background; then the old key alone is refused', async () => {
      const store = await engine.createUrl()
      const env = deploymentEnv(store.url)
      const oldKey = env.SVC_ENCRYPTION_KEY
      const newKey = randomBytes(32).toString('hex')
      const newId = keyFingerprint(Buffer.from(newKey, 'hex'))
      const db = createDb(store.url)
      let server: ServerProcess | undefined
      const triggerSendsSecrets = async (running: ServerProcess, checkId: string) => {
        recorder.received.length = 0
        const run = await api(running, env.SVC_BOOTSTRAP_API_KEY).post(`/v1/checks/${checkId}/trigger`, {})
        assert.equal(run.status, 200, run.body)
        const headers = recorder.received[0]?.headers
        assert.deepEqual(
          [headers?.['x-account'], headers?.['x-group'], headers?.['x-check']],
          [SECRETS.account, SECRETS.group, SECRETS.check],
        )
      }
      try {
        server = await startServerProcess(env)
        const { checkId } = await createSealedValues(
          api(server, env.SVC_BOOTSTRAP_API_KEY).post,
          recorder.url,
        )
        assert.equal(await server.stop(), 0)
        assert.equal((await rawSealedValues(db.db)).length, 7)

        server = await startServerProcess({
          ...env,
          LOG_LEVEL: 'info',
          SVC_ENCRYPTION_KEY: newKey,
          SVC_ENCRYPTION_KEY_PREVIOUS: oldKey,
        })
        await triggerSendsSecrets(server, checkId)
        await server.waitForOutput('encryption key rotation finished', 60_000)
        assert.match(
          server.output(),
          new RegExp(
            `encryption key rotation finished: every sealed value is under the key with fingerprint ${newId}; SVC_ENCRYPTION_KEY_PREVIOUS can now be removed`,
          ),
        )
        const sealed = await rawSealedValues(db.db)
        assert.equal(sealed.length, 7)
        for (const value of sealed) assert.equal(sealingKeyId(value), newId, value)
        const verifier = await findVerifier(db)
        assert.deepEqual([verifier?.key_id, verifier?.rotating_to], [newId, null])
        await triggerSendsSecrets(server, checkId)
        assert.equal(await server.stop(), 0)

        const refused = await refusedStart(env)
        assert.match(refused, new RegExp(`the store expects the key with fingerprint ${newId}\\.`))

        server = await startServerProcess({ ...env, SVC_ENCRYPTION_KEY: newKey })
        await triggerSendsSecrets(server, checkId)
      } finally {
        await server?.stop('SIGKILL')
        await db.close()
        await store.dispose()
      }
    })

    test('a lost key: encryption-reset empties the values no key opens and makes the new key the store’s', async () => {
      const store = await engine.createUrl()
      const env = deploymentEnv(store.url)
      const newKey = randomBytes(32).toString('hex')
      const newId = keyFingerprint(Buffer.from(newKey, 'hex'))
      const db = createDb(store.url)
      let server: ServerProcess | undefined
      try {
        server = await startServerProcess(env)
        const { checkId } = await createSealedValues(
          api(server, env.SVC_BOOTSTRAP_API_KEY).post,
          recorder.url,
          1,
        )
        assert.equal(await server.stop(), 0)
        const lostEnv = { ...env, SVC_ENCRYPTION_KEY: newKey }

        const dryRun = await runEncryptionReset(lostEnv, [])
        assert.match(dryRun, /0 sealed values would be re-sealed/)
        assert.match(dryRun, /4 rows would be emptied of values no configured key opens/)
        assert.match(dryRun, /nothing changed: run again with --yes/)
        assert.notEqual(sealingKeyId((await rawSealedValues(db.db))[0] ?? ''), newId)

        const applied = await runEncryptionReset(lostEnv, ['--yes'])
        assert.match(
          applied,
          new RegExp(
            `4 rows emptied of values no configured key opens:\n  variables [0-9a-f-]{36}\n  checks ${checkId}\n  check_groups [0-9]+\n  alert_channels [0-9]+\n`,
          ),
        )
        const sealed = await rawSealedValues(db.db)
        assert.equal(sealed.length, 5)
        for (const value of sealed) assert.equal(sealingKeyId(value), newId)
        assert.equal((await findVerifier(db))?.key_id, newId)

        server = await startServerProcess(lostEnv)
        recorder.received.length = 0
        const run = await api(server, env.SVC_BOOTSTRAP_API_KEY).post(`/v1/checks/${checkId}/trigger`, {})
        assert.equal(run.status, 200, run.body)
        const headers = recorder.received[0]?.headers
        assert.deepEqual([headers?.['x-account'], headers?.['x-group'], headers?.['x-check']], ['', '', ''])
      } finally {
        await server?.stop('SIGKILL')
        await db.close()
        await store.dispose()
      }
    })
  })
}
