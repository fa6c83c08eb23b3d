import { existsSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  type CheckDefaults,
  type Construct,
  type Issue,
  type Resource,
  resetSession,
  session,
} from '../constructs/construct.ts'
import type { SvcConfig } from './config.ts'

export const CONFIG_FILES = ['svc.config.ts', 'svc.config.mts', 'svc.config.js', 'svc.config.mjs']
const DEFAULT_CHECK_MATCH = '**/*.check.ts'

export interface Project {
  dir: string
  config: SvcConfig
  constructs: Construct[]
  defaults: CheckDefaults
  files: string[]
}

export class ProjectError extends Error {}

/** The config file in `dir` (or `configPath`), or a ProjectError saying what is missing. */
export function findConfig(dir: string, configPath?: string): string {
  if (configPath) {
    const path = resolve(dir, configPath)
    if (!existsSync(path)) throw new ProjectError(`${path} doesn't exist`)
    return path
  }
  const found = CONFIG_FILES.map((name) => join(dir, name)).find((path) => existsSync(path))
  if (!found) throw new ProjectError(`No ${CONFIG_FILES[0]} in ${dir}: run \`svc init\` to make a project`)
  return found
}

/** Loads the config and every check file it matches, collecting the constructs they make. */
export async function loadProject(dir: string, configPath?: string): Promise<Project> {
  const configFile = findConfig(dir, configPath)
  const projectDir = dirname(configFile)
  resetSession()
  const config = await importFile<{ default?: SvcConfig }>(configFile).then((module) => module.default)
  if (!config || typeof config !== 'object') {
    throw new ProjectError(`${configFile} must export default defineConfig({...})`)
  }
  const files = await checkFiles(projectDir, config)
  for (const file of files) await importFile(file)
  session().currentFile = undefined
  const { locations, frequency, tags, alertChannels } = config.checks ?? {}
  return {
    dir: projectDir,
    config,
    constructs: [...session().constructs],
    defaults: { locations, frequency, tags, alertChannels },
    files: [configFile, ...files],
  }
}

async function checkFiles(dir: string, config: SvcConfig): Promise<string[]> {
  const match = config.checks?.checkMatch ?? DEFAULT_CHECK_MATCH
  const found = new Set<string>()
  for await (const file of glob(match, { cwd: dir, exclude: (name) => name === 'node_modules' })) {
    found.add(resolve(dir, file))
  }
  return [...found].sort()
}

/** `npm init -y` writes `"type": "commonjs"`, under which Node refuses the files' `import` statements. */
function moduleTypeHint(reason: string): string {
  if (!/Cannot use import statement outside a module/.test(reason)) return ''
  return ' (the project\'s package.json says "type": "commonjs", as `npm init -y` writes it: set "type": "module")'
}

async function importFile<T>(file: string): Promise<T> {
  session().currentFile = file
  try {
    return (await import(pathToFileURL(file).href)) as T
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ProjectError(`${file} failed to load: ${reason}${moduleTypeHint(reason)}`)
  }
}

/** Everything wrong with the project's constructs, each naming its file and field. */
export function validateProject(project: Project): Issue[] {
  const issues: Issue[] = []
  if (typeof project.config.logicalId !== 'string' || project.config.logicalId === '') {
    issues.push({ file: project.files[0], logicalId: '(config)', path: 'logicalId', message: 'is required' })
  }
  if (typeof project.config.projectName !== 'string' || project.config.projectName === '') {
    issues.push({
      file: project.files[0],
      logicalId: '(config)',
      path: 'projectName',
      message: 'is required',
    })
  }
  const seen = new Map<string, Construct>()
  for (const construct of project.constructs) {
    const key = `${construct.type} ${construct.logicalId}`
    const first = seen.get(key)
    if (first) {
      issues.push({
        file: construct.sourceFile,
        logicalId: construct.logicalId,
        path: 'logicalId',
        message: `is already used by another ${construct.type} (in ${first.sourceFile})`,
      })
    }
    seen.set(key, construct)
    issues.push(...construct.validate(project.defaults))
  }
  return issues
}

export function formatIssue(issue: Issue, dir: string): string {
  const file = issue.file ? relative(dir, issue.file) : '(unknown file)'
  return `${file}: ${issue.logicalId}: ${issue.path} ${issue.message}`
}

/** The deploy protocol's body for the project. */
export function synthesize(project: Project): {
  project: { logicalId: string; name: string; repoUrl?: string }
  resources: Resource[]
} {
  const { logicalId, projectName, repoUrl } = project.config
  return {
    project: { logicalId, name: projectName, ...(repoUrl ? { repoUrl } : {}) },
    resources: resourcesWithOwners(project).map(({ resource }) => resource),
  }
}

/** Each resource of the payload with the construct that made it, in the payload's order. */
export function resourcesWithOwners(project: Project): { resource: Resource; owner: Construct }[] {
  return project.constructs.flatMap((owner) => {
    // The server shows it in projectBindings: where in the repository a resource is defined.
    const sourceFile = owner.sourceFile
      ? relative(project.dir, owner.sourceFile).split(sep).join('/')
      : undefined
    return owner
      .synthesize(project.defaults)
      .map((resource) => ({ resource: sourceFile ? { ...resource, sourceFile } : resource, owner }))
  })
}

/** Locations of checks and groups that the server doesn't serve (`served`: its `GET /v1/locations`). */
export function locationIssues(project: Project, served: string[]): Issue[] {
  return resourcesWithOwners(project).flatMap(({ resource, owner }) => {
    const locations = resource.payload.locations
    if (!Array.isArray(locations)) return []
    const unknown = locations.filter((location) => !served.includes(location))
    if (unknown.length === 0) return []
    return [
      {
        file: owner.sourceFile,
        logicalId: owner.logicalId,
        path: 'locations',
        message: `names ${unknown.join(', ')}, which the server doesn't serve (it serves ${served.join(', ')})`,
      },
    ]
  })
}

/**
 * The server's message about `resources.N…` with the file and construct of resource N, as validation
 * names them (rules only the server knows, such as its locations, are found at deploy).
 */
export function explainServerError(project: Project, message: string): string {
  const match = /resources\.(\d+)(?:\.payload)?\.?(\S*)(.*)$/s.exec(message)
  const owned = match ? resourcesWithOwners(project)[Number(match[1])] : undefined
  if (!match || !owned) return message
  const file = owned.owner.sourceFile ? relative(project.dir, owned.owner.sourceFile) : '(unknown file)'
  return `${file}: ${owned.resource.logicalId}: ${match[2] || '(resource)'}${match[3]}`
}
