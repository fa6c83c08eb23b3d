import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import type { AwsClient } from 'aws4fetch'
import type { S3ArtifactsConfig } from '../../config.ts'
import type { ArtifactStore, StagedRun, StoredResult } from '../../context.ts'
import { ARTIFACT_LIMIT_BYTES, artifactKey, checkKey, filesUnder } from './artifact-store.ts'

const ATTEMPTS = 3
const CHECK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DELETE_BATCH = 1000

/** Imports the S3 client (aws4fetch) only when a bucket is configured: local-disk servers never load it. */
export async function createS3ArtifactStore(
  config: S3ArtifactsConfig,
  options: { limitBytes?: number; stagingRoot?: string } = {},
): Promise<S3ArtifactStore> {
  const { AwsClient } = await import('aws4fetch')
  const client = new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    sessionToken: config.sessionToken,
    service: 's3',
    region: config.region,
    // Retried here instead, with a fresh body stream per attempt.
    retries: 0,
  })
  return new S3ArtifactStore(client, config, options.limitBytes ?? ARTIFACT_LIMIT_BYTES, options.stagingRoot)
}

/**
 * Artifacts in a bucket. Runs write to a local staging directory (the Playwright runner needs files);
 * `commit` uploads them and deletes the local copy. Downloads stream through the server, so API users
 * never need bucket credentials.
 */
export class S3ArtifactStore implements ArtifactStore {
  readonly kind = 's3'
  readonly limitBytes: number
  readonly #client: AwsClient
  readonly #config: S3ArtifactsConfig
  readonly #bucketUrl: string
  readonly #stagingRoot: string

  constructor(client: AwsClient, config: S3ArtifactsConfig, limitBytes: number, stagingRoot = tmpdir()) {
    this.#client = client
    this.limitBytes = limitBytes
    this.#config = config
    this.#stagingRoot = stagingRoot
    this.#bucketUrl = config.endpoint
      ? `${config.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(config.bucket)}`
      : `https://${config.bucket}.s3.${config.region}.amazonaws.com`
  }

  /** Fails with a clear message when the bucket can't be reached with these settings. */
  async verify(): Promise<void> {
    const response = await this.#send('HEAD', `${this.#bucketUrl}/`).catch((error: unknown) => {
      throw new Error(`cannot reach ${this.#where()}: ${error instanceof Error ? error.message : error}`)
    })
    if (response.ok) return
    const reason =
      response.status === 404
        ? 'no such bucket'
        : response.status === 403 || response.status === 401
          ? 'access denied (check the access key and secret)'
          : `HTTP ${response.status}`
    throw new Error(`${this.#where()}: ${reason}`)
  }

  async stage(checkId: string, resultId: string): Promise<StagedRun> {
    const prefix = artifactKey(checkId, resultId)
    if (!prefix) throw new Error(`not an artifact location: ${checkId}/${resultId}`)
    const dir = await mkdtemp(join(this.#stagingRoot, 'svc-run-'))
    const discard = () => rm(dir, { recursive: true, force: true })
    return {
      dir,
      discard,
      commit: async () => {
        try {
          for (const path of await filesUnder(dir)) await this.#upload(`${prefix}/${path}`, join(dir, path))
        } finally {
          await discard()
        }
      },
    }
  }

  async put(checkId: string, resultId: string, path: string, bytes: Buffer): Promise<void> {
    const key = artifactKey(checkId, resultId, path)
    if (!key) throw new Error(`not an artifact path: ${path}`)
    const response = await this.#send('PUT', this.#objectUrl(key), () => ({
      body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) as Uint8Array<ArrayBuffer>,
    }))
    await this.#ok(response, 'PUT', key)
  }

  async open(checkId: string, resultId: string, path: string): Promise<Readable | undefined> {
    const key = artifactKey(checkId, resultId, path)
    if (!key) return undefined
    const response = await this.#send('GET', this.#objectUrl(key))
    if (response.status === 404) {
      await response.body?.cancel()
      return undefined
    }
    if (!response.ok) await this.#ok(response, 'GET', key)
    return Readable.fromWeb(response.body as WebReadableStream)
  }

  async size(checkId: string, resultId: string): Promise<number> {
    const prefix = artifactKey(checkId, resultId)
    if (!prefix) return 0
    let total = 0
    for (const object of await this.#list(`${prefix}/`)) total += object.size
    return total
  }

  async removeResult(checkId: string, resultId: string): Promise<void> {
    const prefix = artifactKey(checkId, resultId)
    if (prefix) await this.#removeUnder(`${prefix}/`)
  }

  async removeCheck(checkId: string): Promise<void> {
    const prefix = checkKey(checkId)
    if (prefix) await this.#removeUnder(`${prefix}/`)
  }

  async listResults(): Promise<StoredResult[]> {
    const results = new Map<string, StoredResult>()
    for (const object of await this.#list('')) {
      const [checkId, resultId] = object.key.split('/')
      // Keys that are not svc's (`<check uuid>/<result id>/…`) are left alone: the bucket may be shared.
      if (!checkId || !resultId || !CHECK_ID.test(checkId)) continue
      const id = `${checkId}/${resultId}`
      const seen = results.get(id)
      if (!seen) results.set(id, { checkId, resultId, modifiedMs: object.modifiedMs })
      else seen.modifiedMs = Math.max(seen.modifiedMs, object.modifiedMs)
    }
    return [...results.values()]
  }

  #where(): string {
    return `S3 bucket ${this.#config.bucket} at ${this.#config.endpoint ?? `AWS ${this.#config.region}`}`
  }

  #objectUrl(key: string): string {
    return `${this.#bucketUrl}/${(this.#config.prefix + key).split('/').map(encodeURIComponent).join('/')}`
  }

  async #upload(key: string, file: string): Promise<void> {
    const { size } = await stat(file)
    // Streamed from disk: a 100 MB trace never sits in memory whole.
    const response = await this.#send('PUT', this.#objectUrl(key), () => ({
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      headers: { 'content-length': String(size) },
    }))
    await this.#ok(response, 'PUT', key)
  }

  /** Objects under `prefix` (relative to the configured key prefix), every page of them. */
  async #list(prefix: string): Promise<{ key: string; size: number; modifiedMs: number }[]> {
    const objects: { key: string; size: number; modifiedMs: number }[] = []
    let token: string | undefined
    do {
      const query = new URLSearchParams({
        'list-type': '2',
        prefix: this.#config.prefix + prefix,
        'encoding-type': 'url',
      })
      if (token) query.set('continuation-token', token)
      const response = await this.#send('GET', `${this.#bucketUrl}/?${query}`)
      const xml = await this.#ok(response, 'LIST', prefix)
      for (const entry of elements(xml, 'Contents')) {
        const key = decodeURIComponent((element(entry, 'Key') ?? '').replace(/\+/g, ' '))
        objects.push({
          key: key.slice(this.#config.prefix.length),
          size: Number(element(entry, 'Size') ?? 0),
          modifiedMs: Date.parse(element(entry, 'LastModified') ?? ''),
        })
      }
      token = element(xml, 'IsTruncated') === 'true' ? element(xml, 'NextContinuationToken') : undefined
    } while (token)
    return objects
  }

  async #removeUnder(prefix: string): Promise<void> {
    const keys = (await this.#list(prefix)).map((object) => this.#config.prefix + object.key)
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH)
      const body = `<Delete><Quiet>true</Quiet>${batch
        .map((key) => `<Object><Key>${escapeXml(key)}</Key></Object>`)
        .join('')}</Delete>`
      const md5 = createHash('md5').update(body).digest('base64')
      const response = await this.#send('POST', `${this.#bucketUrl}/?delete`, () => ({
        body,
        headers: { 'content-md5': md5, 'content-type': 'application/xml' },
      }))
      const xml = await this.#ok(response, 'DELETE', prefix)
      const failed = elements(xml, 'Error')
      if (failed.length) {
        throw new Error(
          `S3 DELETE under ${prefix}: ${failed.length} objects not deleted (${element(failed[0] ?? '', 'Code')})`,
        )
      }
    }
  }

  /** A signed request, retried on network errors, 5xx and 429; `init` makes a fresh body each try. */
  async #send(
    method: string,
    url: string,
    init: () => { body?: BodyInit; headers?: Record<string, string> } = () => ({}),
  ): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined
      try {
        response = await this.#client.fetch(url, { method, ...init() })
      } catch (error) {
        if (attempt >= ATTEMPTS) throw error
      }
      if (response && ((response.status < 500 && response.status !== 429) || attempt >= ATTEMPTS)) {
        return response
      }
      await response?.body?.cancel()
      await new Promise((done) => setTimeout(done, 100 * 2 ** attempt))
    }
  }

  /** The response's text when it succeeded; otherwise an error naming S3's error code. */
  async #ok(response: Response, operation: string, key: string): Promise<string> {
    const text = await response.text()
    if (response.ok) return text
    const code = element(text, 'Code') ?? `HTTP ${response.status}`
    throw new Error(`S3 ${operation} ${key} in bucket ${this.#config.bucket} failed: ${code}`)
  }
}

/** The bodies of each `<name>` element (S3's list and error documents are flat and regular). */
function elements(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((match) => match[1] ?? '')
}

function element(xml: string, name: string): string | undefined {
  const body = elements(xml, name)[0]
  return body === undefined ? undefined : unescapeXml(body)
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
}
