import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiError } from './api.ts'
import { App } from './app.tsx'
import { overviewQuery } from './overview-query.ts'
import { sessionQuery } from './session.tsx'
import './styles.css'

/** How long the first render waits for the session and the overview's first page. */
const FIRST_READS_WAIT_MS = 200

const client = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
})

// The overview's data is fetched beside the session, not after it: one round trip less on the first page.
const firstReads = [client.prefetchQuery(sessionQuery)]
if (location.pathname === '/') firstReads.push(client.prefetchQuery(overviewQuery(location.search)))
// index.html asked both before this script loaded, so they are usually in by now. Waiting for them (a
// moment at most) makes the first render the page itself rather than "Loading" and then the page: one
// render, style and layout pass less before the first rows show. A `then`, not a top-level await: with
// one, the bundler splits the modules lazy pages share into chunks of their own (7 files, not 1).
void Promise.race([
  Promise.all(firstReads),
  new Promise((resolve) => setTimeout(resolve, FIRST_READS_WAIT_MS)),
]).then(() =>
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <QueryClientProvider client={client}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  ),
)
