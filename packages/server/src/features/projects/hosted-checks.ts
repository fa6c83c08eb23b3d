import { posix } from 'node:path'
import type { ServiceContext } from '../../context.ts'
import { badRequest } from '../../http/errors.ts'
import * as storedFiles from '../stored-files/stored-files.service.ts'
import type { ProjectPayload } from './resource-helpers.ts'

type Resource = ProjectPayload['resources'][number]

/** What the hosted CLI adds to a Playwright check for its own runners, which install and run the bundle. */
const BUNDLE_FIELDS = [
  'codeBundlePath',
  'cacheHash',
  'browsers',
  'playwrightVersion',
  'installCommand',
  'testCommand',
  'workingDir',
  'engine',
  'engineVersion',
]
/** svc runs suites with the packages of its runtime and installs nothing: lockfiles are left out. */
const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lock',
  'bun.lockb',
])

/**
 * The payload with the hosted CLI's check payloads made svc's own, before a deploy's transaction:
 * each Playwright check that names an uploaded code bundle (`codeBundlePath`) gets the bundle's files
 * inline as `dependencies`, and the config and `--grep` of its test command. The stored payload then
 * has no upload key, so a redeploy of the same files is unchanged. A 400 names the resource on a bad
 * bundle.
 */
export async function withHostedChecks(
  ctx: ServiceContext,
  accountId: string,
  payload: ProjectPayload,
): Promise<ProjectPayload> {
  if (!payload.resources.some((resource) => resource.type === 'check')) return payload
  const resources: Resource[] = []
  for (const [index, resource] of payload.resources.entries()) {
    const path = `resources.${index}.payload`
    const check = withoutNoSnapshots(resource)
    resources.push(namesBundle(check) ? await inlineBundle(ctx, accountId, check, path) : check)
  }
  return { ...payload, resources }
}

/**
 * A browser check's `snapshots` are `[]` after a deploy uploads none, and absent in a preview, which
 * uploads nothing: both say none, and the preview of an unchanged check must say unchanged.
 */
function withoutNoSnapshots(resource: Resource): Resource {
  const payload = resource.payload as Record<string, unknown> | null | undefined
  if (resource.type !== 'check' || !Array.isArray(payload?.snapshots) || payload.snapshots.length > 0)
    return resource
  const { snapshots: _none, ...rest } = payload
  return { ...resource, payload: rest }
}

function namesBundle(resource: Resource): boolean {
  const payload = resource.payload as Record<string, unknown> | null | undefined
  return resource.type === 'check' && typeof payload?.codeBundlePath === 'string'
}

async function inlineBundle(ctx: ServiceContext, accountId: string, resource: Resource, path: string) {
  const payload = resource.payload as Record<string, unknown>
  const key = payload.codeBundlePath as string
  const files = await storedFiles.codeBundleFiles(ctx, accountId, key)
  if (!files) {
    throw badRequest(
      `${path}.codeBundlePath names no uploaded code bundle ("${key}"): upload it with POST /next/checkly-storage/upload-code-bundle within a day of the deploy`,
    )
  }
  const command = testCommandOptions(payload.testCommand, `${path}.testCommand`)
  const workingDir = typeof payload.workingDir === 'string' ? payload.workingDir : ''
  const rest = Object.fromEntries(Object.entries(payload).filter(([field]) => !BUNDLE_FIELDS.includes(field)))
  return {
    ...resource,
    payload: {
      ...rest,
      dependencies: dependenciesOf(files, `${path}.codeBundlePath`),
      playwrightConfigPath: posix.normalize(posix.join(workingDir, command.config ?? 'playwright.config.ts')),
      ...(command.grep !== undefined && { grep: command.grep }),
    },
  }
}

function dependenciesOf(files: { path: string; bytes: Buffer }[], path: string) {
  const text = new TextDecoder('utf-8', { fatal: true })
  return files
    .filter((file) => !LOCKFILES.has(posix.basename(file.path)))
    .map((file) => {
      try {
        return { path: file.path, content: text.decode(file.bytes) }
      } catch {
        throw badRequest(`${path}: ${file.path} is not a text file; svc runs a suite from its text files`)
      }
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1))
}

/** `--config` and `--grep` of the hosted CLI's test command (`npx playwright test --config 'x' ...`). */
function testCommandOptions(command: unknown, path: string): { config?: string; grep?: string } {
  if (typeof command !== 'string') return {}
  const words = shellWords(command)
  const flagValue = (flag: string) => {
    const at = words.indexOf(flag)
    return at === -1 ? undefined : words[at + 1]
  }
  if (words.includes('--project')) {
    throw badRequest(
      `${path}: svc runs every project of the Playwright config (in Chromium); leave pwProjects out`,
    )
  }
  return { config: flagValue('--config'), grep: flagValue('--grep') }
}

/** Splits a command as a POSIX shell would: spaces, single and double quotes, backslashes. */
function shellWords(command: string): string[] {
  const words: string[] = []
  let word = ''
  let started = false
  let quote: string | undefined
  for (let i = 0; i < command.length; i++) {
    let char = command[i] as string
    const escaped = char === '\\' && quote !== "'" && i + 1 < command.length
    if (escaped) char = command[++i] as string
    if (!escaped && quote && char === quote) quote = undefined
    else if (!escaped && !quote && (char === "'" || char === '"')) quote = char
    else if (!escaped && !quote && /\s/.test(char)) {
      if (started) words.push(word)
      word = ''
      started = false
      continue
    } else word += char
    started = true
  }
  if (started) words.push(word)
  return words
}
