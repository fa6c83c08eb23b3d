import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingComponent } from '@svc/core/testing'
import { freePort } from '@svc/runner/testing'
import { AwsClient } from 'aws4fetch'
import type { S3ArtifactsConfig } from '../config.ts'

/** Debian's Ceph daemons behind a real S3-compatible server: the RADOS Gateway on a one-OSD cluster. */
const BINARIES = ['/usr/bin/ceph-mon', '/usr/bin/ceph-osd', '/usr/bin/radosgw', '/usr/bin/radosgw-admin']
const ACCESS_KEY_ID = 'svc-test-access-key'
const SECRET_ACCESS_KEY = 'svc-test-secret-key-0123456789'
const REGION = 'us-east-1'

/** S3 tests run where Ceph's gateway is installed; elsewhere they are skipped, and say so loudly (in CI they fail). */
export function s3TestsSkipReason(): string | false {
  const missing = BINARIES.filter((binary) => !existsSync(binary))
  if (missing.length === 0) return false
  return missingComponent(
    `Ceph (${missing.join(', ')})`,
    'S3 artifact-store tests',
    'apt-get install ceph-mon ceph-osd radosgw; .ci/run does',
  )
}

export interface S3TestServer {
  endpoint: string
  /** A new empty bucket. */
  createBucket(): Promise<string>
  /** The settings of an artifact store on `bucket`. */
  config(bucket: string, prefix?: string): S3ArtifactsConfig
  /** The SVC_ARTIFACTS_S3_* variables of a server process on `bucket`. */
  env(bucket: string, prefix?: string): Record<string, string>
  /** Every object of `bucket` with its bytes, read with a plain S3 client: what the bucket really holds. */
  objects(bucket: string): Promise<Map<string, Buffer>>
  stop(): Promise<void>
}

/**
 * A real S3-compatible server for tests: Ceph's RADOS Gateway (radosgw) over a throwaway one-monitor,
 * one-OSD cluster whose objects live in memory (memstore), on free loopback ports, without cephx.
 * Starts in about ten seconds; `stop` ends the daemons and removes their directory.
 */
export async function startS3Server(): Promise<S3TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ceph-'))
  const conf = join(dir, 'ceph.conf')
  const [monPort, rgwPort] = [await freePort(), await freePort()]
  const fsid = randomUUID()
  writeFileSync(
    conf,
    `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
public addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
ms client mode = crc
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/$name.log
pid file = ${dir}/run/$name.pid
mon data = ${dir}/$name
osd data = ${dir}/$name
keyring = ${dir}/keyring
osd objectstore = memstore
memstore device bytes = 1073741824
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
rgw max put size = 1073741824
`,
  )
  mkdirSync(join(dir, 'run'))
  writeFileSync(join(dir, 'keyring'), '')
  const daemons: ChildProcess[] = []
  const killAll = () => {
    for (const daemon of daemons) if (daemon.exitCode === null) daemon.kill('SIGKILL')
  }
  process.once('exit', killAll)
  const run = (command: string, args: string[]) =>
    execFileSync(command, ['-c', conf, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    }).toString()
  const daemon = (command: string, args: string[]) => {
    const child = spawn(command, ['-c', conf, '-f', ...args], { stdio: 'ignore' })
    daemons.push(child)
  }
  try {
    execFileSync('monmaptool', [
      '--create',
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      '--fsid',
      fsid,
      join(dir, 'monmap'),
    ])
    run('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap')])
    daemon('ceph-mon', ['-i', 'a'])
    const osd = run('ceph', ['--connect-timeout', '30', 'osd', 'create']).trim()
    mkdirSync(join(dir, `osd.${osd}`))
    run('ceph-osd', ['-i', osd, '--mkfs'])
    daemon('ceph-osd', ['-i', osd])
    daemon('radosgw', ['-n', 'client.rgw'])
    const endpoint = `http://127.0.0.1:${rgwPort}`
    await waitUntilServing(endpoint, dir)
    run('radosgw-admin', [
      'user',
      'create',
      '--uid=svc-test',
      '--display-name=svc test',
      `--access-key=${ACCESS_KEY_ID}`,
      `--secret-key=${SECRET_ACCESS_KEY}`,
    ])
    const client = new AwsClient({
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET_ACCESS_KEY,
      service: 's3',
      region: REGION,
    })
    const config = (bucket: string, prefix = ''): S3ArtifactsConfig => ({
      bucket,
      endpoint,
      region: REGION,
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET_ACCESS_KEY,
      sessionToken: undefined,
      prefix,
    })
    return {
      endpoint,
      config,
      env: (bucket, prefix) => ({
        SVC_ARTIFACTS_S3_BUCKET: bucket,
        SVC_ARTIFACTS_S3_ENDPOINT: endpoint,
        SVC_ARTIFACTS_S3_REGION: REGION,
        SVC_ARTIFACTS_S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
        SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
        ...(prefix ? { SVC_ARTIFACTS_S3_PREFIX: prefix } : {}),
      }),
      async createBucket() {
        const bucket = `svc-test-${randomBytes(4).toString('hex')}`
        const response = await client.fetch(`${endpoint}/${bucket}`, { method: 'PUT' })
        if (!response.ok)
          throw new Error(`creating bucket ${bucket}: ${response.status} ${await response.text()}`)
        return bucket
      },
      async objects(bucket) {
        const listing = JSON.parse(run('radosgw-admin', ['bucket', 'list', `--bucket=${bucket}`])) as {
          name: string
        }[]
        const objects = new Map<string, Buffer>()
        for (const { name } of listing) {
          const key = name.split('/').map(encodeURIComponent).join('/')
          const response = await client.fetch(`${endpoint}/${bucket}/${key}`)
          if (!response.ok) throw new Error(`reading ${name}: ${response.status}`)
          objects.set(name, Buffer.from(await response.arrayBuffer()))
        }
        return objects
      },
      async stop() {
        killAll()
        process.removeListener('exit', killAll)
        await Promise.all(
          daemons.map((child) =>
            child.exitCode === null ? new Promise((done) => child.once('exit', done)) : undefined,
          ),
        )
        rmSync(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    killAll()
    process.removeListener('exit', killAll)
    throw error
  }
}

async function waitUntilServing(endpoint: string, dir: string): Promise<void> {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    const response = await fetch(endpoint).catch(() => undefined)
    if (response) {
      await response.body?.cancel()
      return
    }
    await new Promise((done) => setTimeout(done, 250))
  }
  throw new Error(`radosgw did not serve at ${endpoint} within 90 s (logs in ${dir})`)
}
