import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { CHECK_BODIES } from '@svc/core'
import type { Store } from '@svc/db'
import { serviceContextOf } from '../packages/server/src/app.ts'
import { DEFAULT_RESULT_COMMIT_DELAY_MS } from '../packages/server/src/config/runners.ts'
import type { ServiceContext } from '../packages/server/src/context.ts'
import { createSecretBox } from '../packages/server/src/crypto/secret-box.ts'
import { createAccount } from '../packages/server/src/features/accounts/accounts.service.ts'
import { createCheck } from '../packages/server/src/features/checks/checks.service.ts'
import { compileBodyValidator } from '../packages/server/src/http/validation.ts'
import { scriptRunnerOf } from '../packages/server/src/runs/script-checks.ts'

/** The service context a server would build over `store`, for benches that seed or run in-process. */
export function benchServiceContext(store: Store, now: () => Date, key = randomBytes(32)): ServiceContext {
  return serviceContextOf({
    store,
    clock: { now },
    secretBox: createSecretBox(key),
    publicUrl: 'http://localhost:3000',
    // As a server runs (config.ts): bench:runner measures the commit batching production has.
    resultCommitDelayMs: DEFAULT_RESULT_COMMIT_DELAY_MS,
    scripts: scriptRunnerOf({
      chromiumPath: '/usr/bin/chromium',
      browserConcurrency: 1,
      dataDir: tmpdir(),
      scriptSandbox: 'auto',
      scriptHiddenPaths: [],
    }),
  })
}

/**
 * `count` 1-minute URL checks of `url` in a new account, made through the service (the API's rate limit
 * would make 10,000 POSTs slow); the route's validation fills in the defaults first.
 */
export async function seedUrlChecks(
  ctx: ServiceContext,
  count: number,
  url: string,
  { activated = true } = {},
): Promise<void> {
  const account = await createAccount(ctx, { name: 'bench' })
  const withDefaults = compileBodyValidator(CHECK_BODIES.URL)
  for (let i = 0; i < count; i++) {
    const body = { name: `check ${i}`, frequency: 1, activated, request: { url } }
    const sentFields = new Set(Object.keys(body))
    withDefaults(body)
    await createCheck(ctx, account.id, 'URL', body, { sentFields, autoAssignAlerts: false })
  }
}
