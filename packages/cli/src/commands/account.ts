import { ApiClient } from '../api-client.ts'
import type { Command } from '../command.ts'
import { stringValue } from '../command.ts'
import { resolveCredentials, saveLogin } from '../settings.ts'

interface Account {
  id: string
  name: string
}

export const login: Command = {
  name: 'login',
  summary: 'Check an API URL, key and account, and save them for the next commands (mode 0600)',
  usage: 'svc login --api-url URL --api-key KEY [--account-id ID]',
  async run(ctx) {
    const credentials = resolveCredentials(
      {
        'api-url': stringValue(ctx.values, 'api-url'),
        'api-key': stringValue(ctx.values, 'api-key'),
        'account-id': stringValue(ctx.values, 'account-id'),
      },
      ctx.env,
    )
    const account = await new ApiClient(credentials).get<Account>('/v1/accounts/me')
    const saved = { ...credentials, accountId: credentials.accountId ?? account.id }
    const file = saveLogin(saved, ctx.env)
    ctx.out.result({ apiUrl: saved.apiUrl, account, file }, () => {
      return `Logged in to ${saved.apiUrl} as account "${account.name}" (${account.id}); saved in ${file}`
    })
    return 0
  },
}

export const whoami: Command = {
  name: 'whoami',
  summary: 'Show the API URL and the account the CLI acts in',
  async run(ctx) {
    const client = ctx.client()
    const account = await client.get<Account>('/v1/accounts/me')
    ctx.out.result({ apiUrl: client.credentials.apiUrl, account }, () => {
      return `Account "${account.name}" (${account.id}) at ${client.credentials.apiUrl}`
    })
    return 0
  },
}
