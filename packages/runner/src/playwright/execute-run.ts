import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import type { PreparedRun } from './prepare-run.ts'
import {
  CANCEL_GRACE_MS,
  MAX_LOG_CHARS,
  MAX_LOG_TEXT,
  MAX_LOGS,
  MEMORY_SAMPLE_MS,
  TEST_RUNNER_GRACE_MS,
} from './run-settings.ts'
import type { ScriptRunnerContext } from './types.ts'

export interface Execution {
  exitCode: number | null
  timedOut: boolean
  memoryExceeded: boolean
  cancelled: boolean
  stdout: { at: number; line: string }[]
  /** Lines of stdout past MAX_LOGS or MAX_LOG_CHARS, not kept. */
  stdoutDropped: number
  stderr: string
  wallMs: number
}

/** Runs the child in its own process group: a timeout or memory overrun kills the whole group. */
export async function execute(
  run: PreparedRun,
  timeoutMs: number,
  ctx: ScriptRunnerContext,
): Promise<Execution> {
  const started = performance.now()
  // In the sandbox the run sees its own directory and its account's compile cache of the work root
  // and the temporary directories, no other run's files; only the warm-up may write the cache.
  const [command, args] = await ctx.playwright.commandOf(
    process.execPath,
    run.args,
    [run.workDir, run.compileCache],
    run.warmUp ? [] : [run.compileCache],
  )
  const child = spawn(command, args, {
    cwd: run.workDir,
    env: run.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const result: Execution = {
    exitCode: null,
    timedOut: false,
    memoryExceeded: false,
    cancelled: false,
    stdout: [],
    stdoutDropped: 0,
    stderr: '',
    wallMs: 0,
  }
  const endStdout = collectOutput(child, result)
  const stopWatching = watchLimits(child.pid as number, run, timeoutMs, ctx, result)
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null))
    child.once('exit', (code) => resolve(code))
  })
  stopWatching()
  // Whatever the script left running (its own subprocesses, stuck workers) goes with it.
  killGroup(child.pid as number)
  await outputClosed(child)
  endStdout()
  result.exitCode = exitCode
  result.wallMs = performance.now() - started
  return result
}

/**
 * Keeps stdout as lines (each its first MAX_LOG_TEXT + 1 characters, so output without newlines stays
 * bounded) and the last 64 KiB of stderr. Answers a function that keeps the last unfinished line.
 */
function collectOutput(child: ChildProcess, result: Execution): () => void {
  let stdoutRest = ''
  let stdoutChars = 0
  const takeLine = (part: string) => {
    if (stdoutRest.length <= MAX_LOG_TEXT) stdoutRest += part.slice(0, MAX_LOG_TEXT + 1 - stdoutRest.length)
  }
  const endLine = () => {
    stdoutChars += stdoutRest.length
    if (result.stdout.length < MAX_LOGS && stdoutChars <= MAX_LOG_CHARS)
      result.stdout.push({ at: Date.now(), line: stdoutRest })
    else result.stdoutDropped++
    stdoutRest = ''
  }
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    const parts = chunk.split('\n')
    takeLine(parts[0] as string)
    for (const part of parts.slice(1)) {
      endLine()
      takeLine(part)
    }
  })
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    result.stderr = (result.stderr + chunk.slice(-64 * 1024)).slice(-64 * 1024)
  })
  return () => {
    if (stdoutRest) endLine()
  }
}

/** The run's time limit, memory limit and cancellation; answers a function that stops watching. */
function watchLimits(
  pid: number,
  run: PreparedRun,
  timeoutMs: number,
  ctx: ScriptRunnerContext,
  result: Execution,
): () => void {
  const limitMs = run.mode === 'test' ? timeoutMs + TEST_RUNNER_GRACE_MS : timeoutMs
  const timer = setTimeout(() => {
    result.timedOut = true
    killGroup(pid)
  }, limitMs)
  const memoryLimit = ctx.playwright.memoryLimitMb * 1024 * 1024
  const sampler = setInterval(() => {
    if (groupRss(pid) > memoryLimit) {
      result.memoryExceeded = true
      killGroup(pid)
    }
  }, MEMORY_SAMPLE_MS)
  let cancelGrace: NodeJS.Timeout | undefined
  const cancel = () => {
    result.cancelled = true
    if (run.mode === 'script') return killGroup(pid)
    // As Ctrl-C would: Playwright stops the tests in flight and still reports them, with their traces.
    try {
      process.kill(-pid, 'SIGINT')
    } catch {}
    cancelGrace = setTimeout(() => killGroup(pid), CANCEL_GRACE_MS)
  }
  if (ctx.signal?.aborted) cancel()
  ctx.signal?.addEventListener('abort', cancel, { once: true })
  return () => {
    clearTimeout(timer)
    clearTimeout(cancelGrace)
    clearInterval(sampler)
    ctx.signal?.removeEventListener('abort', cancel)
  }
}

function killGroup(pid: number) {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {}
}

function outputClosed(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.stdout?.readableEnded && child.stderr?.readableEnded) return resolve()
    const guard = setTimeout(resolve, 2000)
    child.once('close', () => {
      clearTimeout(guard)
      resolve()
    })
  })
}

function groupRss(pgid: number): number {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid) total += Number(fields[21]) * 4096
    } catch {}
  }
  return total
}
