import type { ServiceContext } from '../context.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { listVariablesOfAccounts } from '../features/variables/variable-lookups.service.ts'
import { plainValue } from '../features/variables/variables.service.ts'

export interface RunVariables {
  /** Account variables, overridden by the group's, overridden by the check's. */
  values: Map<string, string>
  /** Values of locked, secret and SVC_SECRET_* variables: scrubbed from everything a run stores. */
  hidden: string[]
  /** Keys whose final value is locked or secret. */
  hiddenKeys: Set<string>
}

/** Each account's variables, decrypted, by account id. */
export type AccountVariables = Map<string, { key: string; value: string; hidden: boolean }[]>

/**
 * The variables of `accountIds`, read fresh for the runs of one claim (one query and one decryption each,
 * however many of the claim's checks share an account), so edits apply from the next claim on.
 */
export async function loadAccountVariables(
  ctx: ServiceContext,
  accountIds: string[],
): Promise<AccountVariables> {
  const variables: AccountVariables = new Map(accountIds.map((id) => [id, []]))
  for (const row of await listVariablesOfAccounts(ctx, [...variables.keys()])) {
    variables.get(row.account_id)?.push({
      key: row.key,
      value: plainValue(ctx, row),
      hidden: Boolean(row.locked) || Boolean(row.secret),
    })
  }
  return variables
}

/**
 * The variables a run of `check` sees: its account's (from `accounts` when the claim loaded them, else
 * read now), then its group's and its own.
 */
export async function runVariables(
  ctx: ServiceContext,
  check: ResolvedCheck,
  accounts?: AccountVariables,
): Promise<RunVariables> {
  const accountId = check.row.account_id
  const ofAccount = accounts?.get(accountId) ?? (await loadAccountVariables(ctx, [accountId])).get(accountId)
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
  for (const variable of ofAccount ?? []) add(variable.key, variable.value, variable.hidden)
  for (const variable of check.effective.environmentVariables) {
    const value = variable.value ?? ctx.secretBox.decrypt(variable.sealedValue ?? '')
    add(variable.key, value, variable.locked || variable.secret)
  }
  return { values, hidden, hiddenKeys }
}
