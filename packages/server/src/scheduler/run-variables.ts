import type { ServiceContext } from '../context.ts'
import type { ResolvedCheck } from '../features/checks/checks.service.ts'
import { listAccountVariables } from '../features/variables/variables.repo.ts'
import { plainValue } from '../features/variables/variables.service.ts'

export interface RunVariables {
  /** Account variables, overridden by the group's, overridden by the check's. */
  values: Map<string, string>
  /** Values of locked and secret variables: scrubbed from everything a run stores. */
  hidden: string[]
}

/** The variables a run of `check` sees, read fresh each run so edits apply to the next one. */
export async function runVariables(ctx: ServiceContext, check: ResolvedCheck): Promise<RunVariables> {
  const values = new Map<string, string>()
  const hidden: string[] = []
  for (const row of await listAccountVariables(ctx, check.row.account_id)) {
    const value = plainValue(ctx, row)
    values.set(row.key, value)
    if (row.locked || row.secret) hidden.push(value)
  }
  for (const variable of check.effective.environmentVariables) {
    const value = variable.value ?? ctx.secretBox.decrypt(variable.sealedValue ?? '')
    values.set(variable.key, value)
    if (variable.locked || variable.secret) hidden.push(value)
  }
  return { values, hidden }
}
