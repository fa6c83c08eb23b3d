import pg from 'pg'

export interface StoreListener {
  /** Resolves once the first LISTEN is on (or the listener is closed before that). */
  ready: Promise<void>
  close(): Promise<void>
}

const RETRY_FIRST_MS = 1000
const RETRY_MAX_MS = 30_000

/**
 * Listens on a PostgreSQL notification channel over a connection of its own (NOTIFY sent in a
 * transaction arrives once it commits). A lost connection is opened again, after 1 s and up to 30 s
 * between tries. `listening` is called each time the LISTEN is on, the first time included: what was
 * sent before never arrives, so whoever waits on it looks for work then.
 * Kept as one closure (over 60 lines): connect, its retry and close share the open client, the retry
 * timer and the closed flag.
 */
export function listenToStore(
  url: string,
  channel: string,
  handlers: { message(payload: string): void; listening(): void; error(error: unknown): void },
): StoreListener {
  let client: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  let retryMs = RETRY_FIRST_MS
  let firstListen: () => void = () => {}
  const ready = new Promise<void>((resolve) => {
    firstListen = resolve
  })

  const connect = async () => {
    const next = new pg.Client({ connectionString: url })
    next.on('notification', (notification) => {
      if (notification.channel === channel) handlers.message(notification.payload ?? '')
    })
    // Errors of a connection in use also end it: both lead to one new try.
    let lost = false
    const onLost = (error?: unknown) => {
      if (lost) return
      lost = true
      if (error) handlers.error(error)
      next.end().catch(() => {})
      if (client === next) client = undefined
      if (!closed) retryLater()
    }
    next.on('error', onLost)
    next.on('end', () => onLost())
    try {
      await next.connect()
      await next.query(`listen ${pg.escapeIdentifier(channel)}`)
    } catch (error) {
      onLost(error)
      return
    }
    if (closed) {
      await next.end().catch(() => {})
      return
    }
    client = next
    retryMs = RETRY_FIRST_MS
    handlers.listening()
    firstListen()
  }

  const retryLater = () => {
    clearTimeout(retry)
    retry = setTimeout(() => void connect(), retryMs)
    retryMs = Math.min(RETRY_MAX_MS, retryMs * 2)
  }

  const started = connect()
  return {
    ready,
    async close() {
      closed = true
      firstListen()
      clearTimeout(retry)
      await started
      const open = client
      client = undefined
      await open?.end().catch(() => {})
    },
  }
}
