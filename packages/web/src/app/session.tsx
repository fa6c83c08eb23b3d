import { useQuery, useQueryClient } from '@tanstack/react-query'
import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react'
import { ApiError, api, setSessionHeaders } from './api.ts'
import { setTimeZone } from './format.ts'
import type { Role, Session } from './types.ts'

interface SessionContextValue {
  session: Session
  accountId: string
  role: Role
  canWrite: boolean
  isAdmin: boolean
  chooseAccount(id: string): void
  signOut(): Promise<void>
}

const SessionContext = createContext<SessionContextValue | null>(null)
const ACCOUNT_KEY = 'svc.account'

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext)
  if (!value) throw new Error('useSession outside a signed-in page')
  return value
}

/** The signed-in session, or null when signed out; shared by App and the start-up prefetch in main.tsx. */
export const sessionQuery = {
  queryKey: ['session'],
  queryFn: async (): Promise<Session | null> => {
    try {
      return await api.get<Session>('/v1/auth/session')
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null
      throw error
    }
  },
  staleTime: 60_000,
}

export function useSessionQuery() {
  return useQuery(sessionQuery)
}

export function SessionProvider(props: { session: Session; children: ReactNode }) {
  const client = useQueryClient()
  const { session } = props
  const [accountId, setAccountId] = useState(() => {
    const stored = localStorage.getItem(ACCOUNT_KEY)
    return session.accounts.find((account) => account.id === stored)?.id ?? session.accounts[0]?.id ?? ''
  })
  setSessionHeaders(session.csrfToken, accountId)
  const account = session.accounts.find((entry) => entry.id === accountId)
  const accountQuery = useQuery({
    queryKey: ['account', accountId],
    queryFn: () => api.get<{ settings?: { timezone?: string } }>('/v1/accounts/me'),
    staleTime: 60_000,
  })
  setTimeZone(accountQuery.data?.settings?.timezone)
  useEffect(() => {
    localStorage.setItem(ACCOUNT_KEY, accountId)
  }, [accountId])
  const value = useMemo<SessionContextValue>(() => {
    const role = account?.role ?? 'READ_ONLY'
    return {
      session,
      accountId,
      role,
      canWrite: role !== 'READ_ONLY',
      isAdmin: role === 'OWNER' || role === 'ADMIN',
      chooseAccount(id) {
        setAccountId(id)
        setSessionHeaders(session.csrfToken, id)
        client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' })
      },
      async signOut() {
        try {
          await api.post('/v1/auth/sign-out')
        } finally {
          setSessionHeaders(undefined, undefined)
          // The session query keeps its observer (clearing the cache would leave App watching a removed
          // query); everything else goes, so the next person sees nothing of this one's data.
          client.setQueryData(['session'], null)
          client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' })
        }
      },
    }
  }, [session, accountId, account, client])
  return <SessionContext.Provider value={value}>{props.children}</SessionContext.Provider>
}
