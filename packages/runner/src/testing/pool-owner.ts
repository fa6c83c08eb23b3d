// A stand-in for a server in tests: a process that owns a Playwright pool, runs browser checks with
// its own pid (SERVER_PID) among their variables, and prints each result as a JSON line.
// argv[2]: {sandbox, hiddenPaths, workRoot, artifactsDir, scripts: string[], variables: {key, value}[]}
import { runBrowserCheck } from '../playwright/index.ts'
import { PlaywrightPool } from '../playwright/pool.ts'
import type { ScriptSandboxMode } from '../playwright/sandbox.ts'

const options = JSON.parse(process.argv[2] as string) as {
  sandbox: ScriptSandboxMode
  hiddenPaths: string[]
  workRoot: string
  artifactsDir: string
  scripts: string[]
  variables: { key: string; value: string }[]
}
const pool = new PlaywrightPool({
  sandbox: options.sandbox,
  hiddenPaths: options.hiddenPaths,
  workRoot: options.workRoot,
})
process.stdout.write(`${JSON.stringify({ sandbox: await pool.start() })}\n`)
for (const [index, script] of options.scripts.entries()) {
  const result = await runBrowserCheck(
    {
      name: `owned run ${index}`,
      runLocation: 'local',
      script,
      environmentVariables: [{ key: 'SERVER_PID', value: String(process.pid) }, ...options.variables],
    },
    { now: () => new Date(), playwright: pool, artifactsDir: `${options.artifactsDir}/${index}` },
  )
  process.stdout.write(`${JSON.stringify({ result })}\n`)
}
await pool.close()
