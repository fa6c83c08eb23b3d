import type { ServiceContext } from '../context.ts'
import type { ResolvedCheck } from '../features/checks/checks.service.ts'
import { listAccountVariables } from '../features/variables/variables.repo.ts'
import { plainValue } from '../features/variables/variables.service.ts'

export interface RunVariables {
  /** Account variables, overridden by the group's, overridden by the check's. */
  values: Map<string, string>
  /** Values of locked, secret and SVC_SECRET_* variables: scrubbed from everything a run stores. */
  hidden: string[]
  /** Keys whose final value is locked or secret. */
  hiddenKeys: Set<string>
}

/** The variables a run of `check` sees, read fresh each run so edits apply to the next one. */
export async function runVariables(ctx: ServiceContext, check: ResolvedCheck): Promise<RunVariables> {
  const values = new Map<string, string>()
  const hidden: string[] = []
  const hiddenKeys = new Set<string>()
  const add = (key: string, value: string, locked: boolean) => {
    values.set(key, value)
    // SVC_SECRET_* variables are secrets by name, whatever their flags say.
    if (locked || key.startsWith('SVC_SECRET_')) {
      hidden.push(value)
      hiddenKeys.add(key)
    } else hiddenKeys.delete(key)
  }
  for (const row of await listAccountVariables(ctx, check.row.account_id)) {
    add(row.key, plainValue(ctx, row), Boolean(row.locked) || Boolean(row.secret))
  }
  for (const variable of check.effective.environmentVariables) {
    const value = variable.value ?? ctx.secretBox.decrypt(variable.sealedValue ?? '')
    add(variable.key, value, variable.locked || variable.secret)
  }
  return { values, hidden, hiddenKeys }
}
