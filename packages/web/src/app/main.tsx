import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiError } from './api.ts'
import { App } from './app.tsx'
import { overviewQuery } from './overview-query.ts'
import './styles.css'

const client = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
})

// The overview's data is fetched beside the session, not after it: one round trip less on the first page.
if (location.pathname === '/') void client.prefetchQuery(overviewQuery(location.search))

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
)
