import { lazy, Suspense } from 'react'
import { SetPasswordPage, SignInPage } from './pages/auth.tsx'
import { OverviewPage } from './pages/overview.tsx'
import { match, useLocation } from './router.tsx'
import { SessionProvider, useSessionQuery } from './session.tsx'
import { Shell } from './shell.tsx'
import { ErrorBox, Loading } from './ui/ui.tsx'

// Everything past the overview loads on demand, so the first page's JavaScript stays small.
const CheckPage = lazy(() => import('./pages/check.tsx'))
const ResultPage = lazy(() => import('./pages/result.tsx'))
const CheckFormPage = lazy(() => import('./pages/check-form.tsx'))
const SettingsPage = lazy(() => import('./pages/settings.tsx'))
const TestSessionPage = lazy(() => import('./pages/test-session.tsx'))
const TestSessionsPage = lazy(() => import('./pages/test-sessions.tsx'))
const TestSessionResultPage = lazy(() =>
  import('./pages/test-session.tsx').then((module) => ({ default: module.TestSessionResultPage })),
)

export function App() {
  const { path } = useLocation()
  const sessionQuery = useSessionQuery()
  if (path === '/set-password') return <SetPasswordPage />
  if (sessionQuery.isPending) return <Loading />
  if (sessionQuery.error) return <ErrorBox error={sessionQuery.error} />
  if (!sessionQuery.data) return <SignInPage />
  return (
    <SessionProvider session={sessionQuery.data}>
      <Shell>
        <Suspense fallback={<Loading />}>
          <Routes path={path} />
        </Suspense>
      </Shell>
    </SessionProvider>
  )
}

function Routes(props: { path: string }) {
  const { path } = props
  if (path === '/' || path === '/checks') return <OverviewPage />
  if (path === '/checks/new') return <CheckFormPage />
  let params = match('/checks/:id/edit', path)
  if (params) return <CheckFormPage checkId={params.id} />
  params = match('/checks/:id/results/:resultId', path)
  if (params) return <ResultPage checkId={params.id as string} resultId={params.resultId as string} />
  params = match('/checks/:id', path)
  if (params) return <CheckPage checkId={params.id as string} />
  if (path === '/test-sessions') return <TestSessionsPage />
  params = match('/test-sessions/:id/results/:resultId', path)
  if (params)
    return <TestSessionResultPage sessionId={params.id as string} resultId={params.resultId as string} />
  params = match('/test-sessions/:id', path)
  if (params) return <TestSessionPage sessionId={params.id as string} />
  params = match('/settings/:resource', path) ?? match('/settings/:resource/:id', path)
  if (params) return <SettingsPage resource={params.resource as string} id={params.id} />
  return (
    <div className="empty">
      <h1>Page not found</h1>
      <p>
        <a href="/">Back to the overview</a>
      </p>
    </div>
  )
}
