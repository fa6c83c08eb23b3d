import { DEFAULT_RUNTIME_ID, RUNTIME_IDS, type RuntimeId } from './tenancy.ts'

export const RUNTIME_STAGES = ['CURRENT', 'STABLE', 'DEPRECATED'] as const
export type RuntimeStage = (typeof RUNTIME_STAGES)[number]

export interface Runtime {
  name: RuntimeId
  stage: RuntimeStage
  /** ISO date-time after which checks should move to a newer runtime; null while supported. */
  runtimeEndOfLife: string | null
  /** The runtime a check gets when neither it, its group nor its account names one. */
  default: boolean
  description: string
  multiStepSupport: boolean
  nodeJsVersion: string
  /** npm package → the exact version installed for the runner; nothing else can be imported. */
  dependencies: Record<string, string>
}

export const RUNTIME_NODE_VERSION = 'v24.9.0'

/**
 * What the runner really has installed (packages/runner/package.json). One install serves every id:
 * older ids keep working scripts that were written for them, they just run on today's packages.
 * A test in packages/runner keeps these versions equal to the installed ones.
 */
export const RUNTIME_DEPENDENCIES: Readonly<Record<string, string>> = {
  '@playwright/test': '1.65.1',
  playwright: '1.65.1',
  'playwright-core': '1.65.1',
  '@faker-js/faker': '10.6.0',
  axios: '1.21.1',
  'crypto-js': '4.2.0',
  dayjs: '1.11.23',
  jsonwebtoken: '9.0.3',
  lodash: '4.18.1',
  otpauth: '9.5.2',
  uuid: '14.0.3',
}

const LIFECYCLE: Record<RuntimeId, { stage: RuntimeStage; runtimeEndOfLife: string | null }> = {
  '2025.04': { stage: 'CURRENT', runtimeEndOfLife: null },
  '2024.09': { stage: 'STABLE', runtimeEndOfLife: null },
  '2024.02': { stage: 'DEPRECATED', runtimeEndOfLife: '2026-12-31T00:00:00.000Z' },
  '2023.09': { stage: 'DEPRECATED', runtimeEndOfLife: '2026-06-30T00:00:00.000Z' },
  '2023.02': { stage: 'DEPRECATED', runtimeEndOfLife: '2025-12-31T00:00:00.000Z' },
  '2022.10': { stage: 'DEPRECATED', runtimeEndOfLife: '2025-06-30T00:00:00.000Z' },
}

function runtimeOf(name: RuntimeId): Runtime {
  return {
    name,
    ...LIFECYCLE[name],
    default: name === DEFAULT_RUNTIME_ID,
    description: `Playwright ${RUNTIME_DEPENDENCIES['@playwright/test']} on Node.js ${RUNTIME_NODE_VERSION}, with Node.js built-ins (node:*) and the packages listed.`,
    multiStepSupport: true,
    nodeJsVersion: RUNTIME_NODE_VERSION,
    dependencies: { ...RUNTIME_DEPENDENCIES },
  }
}

/** Every runtime id of the spec, newest first. */
export const RUNTIMES: readonly Runtime[] = RUNTIME_IDS.map(runtimeOf)

export function findRuntime(id: string): Runtime | undefined {
  return RUNTIMES.find((runtime) => runtime.name === id)
}

/** The npm package a bare import specifier names (`lodash/fp` → `lodash`, `@a/b/c` → `@a/b`). */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier)
}
