import { type ChildProcess, spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { SANDBOX_PATH } from './sandbox.ts'

/** Flags for a headless Chromium on a server without internet, GPU or a user sandbox. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  // Not the system's proxy (Chromium reads http_proxy and the like from the environment): a run's
  // proxy is its own, set on its contexts, so data-center runs stay direct like their URL checks.
  '--no-proxy-server',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--metrics-recording-only',
  '--mute-audio',
  '--js-flags=--max-old-space-size=512',
]

const BROWSER_START_TIMEOUT_MS = 30_000
/** The Node script that launches Chromium and prints its endpoint. */
export const BROWSER_HOST_SCRIPT = fileURLToPath(new URL('./child/browser-host.cjs', import.meta.url))

/** A running Chromium that runs connect to: its host process and its endpoint. */
export interface BrowserHost {
  process: ChildProcess
  wsEndpoint: string
}

export function browserHostArgs(chromiumPath: string): string[] {
  return [BROWSER_HOST_SCRIPT, JSON.stringify({ executablePath: chromiumPath, args: CHROMIUM_ARGS })]
}

/**
 * Starts the browser host (`command args`, from `browserHostArgs`, maybe in the sandbox) in
 * `browserDir`. `host` settles once Chromium prints its endpoint; `onExit` runs when the host exits.
 */
export function startBrowserHost(
  [command, args]: [string, string[]],
  browserDir: string,
  onExit: () => void,
): { process: ChildProcess; host: Promise<BrowserHost> } {
  // Nothing of the server's environment: Chromium loads file:// URLs, its own /proc/self/environ too.
  const env = { PATH: SANDBOX_PATH, HOME: browserDir, TMPDIR: browserDir }
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const host = new Promise<BrowserHost>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('Chromium did not start within 30 s'))
    }, BROWSER_START_TIMEOUT_MS)
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
    lines.once('line', (line) => {
      clearTimeout(timer)
      try {
        resolve({ process: child, wsEndpoint: JSON.parse(line).wsEndpoint })
      } catch {
        reject(new Error(`Chromium did not start: ${line}`))
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`Chromium did not start (exit ${code}): ${stderr.trim()}`))
    })
  })
  child.once('exit', () => {
    onExit()
    void rm(browserDir, { recursive: true, force: true }).catch(() => {})
  })
  // The host must not keep the server alive; it stops by itself when our stdin pipe closes.
  child.unref()
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    ;(stream as unknown as { unref?: () => void } | null)?.unref?.()
  }
  return { process: child, host }
}

/** Closes a Chromium: its host closes the browser when its stdin ends (killed after 5 s). */
export async function stopBrowserHost(host: BrowserHost): Promise<void> {
  if (host.process.exitCode !== null || host.process.signalCode !== null) return
  const exited = new Promise((resolve) => host.process.once('exit', resolve))
  host.process.stdin?.end()
  const timer = setTimeout(() => host.process.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}
