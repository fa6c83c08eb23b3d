import { testEngines } from '../packages/db/src/testing.ts'
import { storeEnv } from '../packages/server/src/testing/server-process.ts'

/** The engine a bench's server stores in: PostgreSQL when DATABASE_URL is set, else SQLite. */
export const benchEngine = process.env.DATABASE_URL ? 'postgres' : 'sqlite'

/**
 * A store of its own for one bench run's server, dropped at the end: a fresh schema of DATABASE_URL,
 * or a new SQLite file. A server makes its first account (with the API key a bench hands it) only in an
 * empty store, so runs must never share one.
 */
export async function benchStore(): Promise<{ env: Record<string, string>; dispose(): Promise<void> }> {
  const { url, dispose } = await benchStoreUrl()
  return { env: storeEnv(url), dispose }
}

/** The URL of such a store, for a bench that opens it itself (and may hand it to a server after). */
export async function benchStoreUrl(): Promise<{ url: string; dispose(): Promise<void> }> {
  if (process.env.DATABASE_URL) process.env.SVC_TEST_DATABASE_URL = process.env.DATABASE_URL
  const engine = testEngines().find((candidate) => candidate.engine === benchEngine)
  if (!engine) throw new Error(`no ${benchEngine} store for the bench`)
  return engine.createUrl()
}
