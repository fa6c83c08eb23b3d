import { spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { resolve, sep } from 'node:path'

/** SVC_SCRIPT_SANDBOX: `auto` uses the sandbox where it works, `on` refuses script runs without it. */
export const SCRIPT_SANDBOX_MODES = ['auto', 'on', 'off'] as const
export type ScriptSandboxMode = (typeof SCRIPT_SANDBOX_MODES)[number]

export interface ScriptSandboxStatus {
  mode: ScriptSandboxMode
  /** Script runs and the shared Chromium start inside the sandbox. */
  sandboxed: boolean
  /** Why the sandbox can't be made (null when it works or is off). */
  problem: string | null
}

/** What a sandboxed process sees of the file system. */
export interface SandboxSpec {
  /** Directories and files of the server's own, hidden (an unreadable tmpfs, /dev/null). */
  hiddenPaths: string[]
  /**
   * The pool's work root, seen read only: an empty tmpfs holding only `keep`, existing directories
   * bound back at their paths (a run's own directory and its account's cache, a browser's profile),
   * not the other runs' files, traces or browser profiles. Kept directories under a private
   * temporary directory are bound back there too.
   */
  privateRoot?: { dir: string; keep: string[] }
  /**
   * Temporary directories every process of the machine shares (the server's TMPDIR, /tmp, /var/tmp,
   * /dev/shm), each replaced by an empty, writable tmpfs of the process's own. One that is the work
   * root too is writable with the kept directories in it.
   */
  privateTempDirs?: string[]
  /** Directories (kept ones among them) the process may read but not change (a shared cache). */
  readOnlyPaths?: string[]
}

/** Temporary directories shared by every process of the machine, made private in the sandbox. */
export const SHARED_TEMP_DIRS = ['/tmp', '/var/tmp', '/dev/shm']
/** What a script may write to its private /tmp (RAM, not counted in the run's RSS). */
const PRIVATE_TEMP_DIR_SIZE = '256m'
/** File descriptors 3 … 9 keep the kept directories reachable while the tmpfs is mounted over them. */
const MAX_KEPT_PATHS = 7

/** Where the sandbox's own tools (setpriv, unshare, mount) are found. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/**
 * Runs inside the new namespaces as their init (PID 1), with
 * `root count kept… temp… -- read-only… -- hidden… -- command`: opens each kept directory (fd 3, 4, …),
 * mounts an empty, writable tmpfs over each private temporary directory and one over the private root
 * (`root`, if any), binds the kept directories back at their paths through their descriptors (the
 * paths are covered by then) and makes the root read only; makes the read-only paths so; hides each
 * hidden path (an empty, unreadable tmpfs over a directory, /dev/null over a file); then runs the
 * command with no capabilities left, so it can't unmount or remount any of it. It waits instead of
 * `exec`ing, so the command doesn't run as PID 1, which ignores signals it has no handler for.
 */
const INIT_SCRIPT = `set -e
root=$1 keeps=$2
shift 2
n=0
while [ $n -lt $keeps ]; do eval "exec $((n + 3))<\\"\\$$((n + 1))\\""; n=$((n + 1)); done
n=0
while [ $n -lt $keeps ]; do eval "kept$((n + 3))=\\$1"; shift; n=$((n + 1)); done
while [ "$1" != -- ]; do
  mount -t tmpfs -o nosuid,nodev,mode=1777,size=${PRIVATE_TEMP_DIR_SIZE} svc-private "$1"
  shift
done
shift
if [ -n "$root" ]; then
  mkdir -p "$root"
  mount -t tmpfs -o nosuid,nodev,size=64k,mode=0755 svc-private "$root"
fi
n=3
while [ $n -lt $((keeps + 3)) ]; do
  eval "keep=\\$kept$n"
  mkdir -p "$keep"
  mount -c --bind "/proc/self/fd/$n" "$keep"
  eval "exec $n<&-"
  n=$((n + 1))
done
if [ -n "$root" ]; then mount -o remount,ro,nosuid,nodev svc-private "$root"; fi
while [ "$1" != -- ]; do
  mount --bind "$1" "$1"
  mount -o remount,bind,ro "$1"
  shift
done
shift
while [ "$1" != -- ]; do
  if [ -d "$1" ]; then mount -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=0 svc-hidden "$1"
  elif [ -e "$1" ]; then mount --bind /dev/null "$1"; fi
  shift
done
shift
set +e
setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$@"
exit $?`

/**
 * `command args` inside new user, PID and mount namespaces with a fresh /proc (the server's and
 * every other process are invisible) and the hidden paths covered; the network stays shared. When
 * the process that spawns it dies, even by SIGKILL, `unshare` gets SIGKILL (setpriv's parent-death
 * signal) and kills the namespace's init, which takes every process in the namespace with it.
 */
export function sandboxed(spec: SandboxSpec, command: string, args: string[]): [string, string[]] {
  const root = spec.privateRoot ?? { dir: '', keep: [] }
  // The init script keeps each directory open on a one-digit descriptor (3 to 9) while it covers the roots.
  if (root.keep.length > MAX_KEPT_PATHS) throw new Error(`at most ${MAX_KEPT_PATHS} directories can be kept`)
  const tempDirs = spec.privateTempDirs ?? []
  return [
    'setpriv',
    [
      '--pdeathsig=KILL',
      '--',
      'unshare',
      '--user',
      '--map-root-user',
      '--pid',
      '--kill-child=KILL',
      '--mount-proc',
      'sh',
      '-c',
      INIT_SCRIPT,
      'svc-sandbox',
      // A work root that is a temporary directory too stays writable: it is only that one.
      tempDirs.includes(root.dir) ? '' : root.dir,
      String(root.keep.length),
      ...root.keep,
      ...tempDirs,
      '--',
      ...(spec.readOnlyPaths ?? []),
      '--',
      ...spec.hiddenPaths,
      '--',
      command,
      ...args,
    ],
  ]
}

export function sandboxRefusal(problem: string): string {
  return `Script checks are refused: SVC_SCRIPT_SANDBOX is on and the sandbox can't be made: ${problem}`
}

/**
 * The shared temporary directories that exist, by their real paths, without those inside another or
 * inside the work root (which covers them): each becomes an empty, writable tmpfs in the sandbox.
 */
export function privateTempDirsOf(workRoot: string, tempDirs: string[]): string[] {
  const root = realOrResolved(workRoot)
  const dirs = [...new Set(tempDirs.map(realOrNull).filter((path) => path !== null))].filter(
    (dir) => dir === root || !isInside(dir, root),
  )
  return dirs.filter((dir) => !dirs.some((other) => other !== dir && isInside(dir, other))).sort()
}

/**
 * The directories to keep visible under the private root and temporary directories: those of `paths`
 * inside one, by their real paths, without those inside another.
 */
export function keptPathsOf(privateRoots: string[], paths: string[]): string[] {
  const kept = [
    ...new Set(
      paths
        .map((path) => realOrResolved(path))
        .filter((path) => privateRoots.some((root) => isInside(path, root))),
    ),
  ]
  return kept.filter((path) => !kept.some((other) => other !== path && isInside(path, other)))
}

/**
 * Paths a run needs to see: hiding a path that holds one of them would break every run, unless the
 * sandbox keeps it (`kept`: mounted back into a private root that replaces the hidden one).
 */
export function hiddenPathProblem(
  hiddenPaths: string[],
  needed: Record<string, string>,
  kept: string[] = [],
): string | null {
  for (const hidden of hiddenPaths) {
    for (const [what, path] of Object.entries(needed)) {
      const real = realOrResolved(path)
      if (kept.some((keptPath) => isInside(real, realOrResolved(keptPath)))) continue
      if (isInside(real, realOrResolved(hidden)))
        return `${hidden} can't be hidden from scripts: it holds ${what} (${path})`
    }
  }
  return null
}

/**
 * Starts a process in the sandbox and checks from inside that it is one: its parent is the new
 * namespace's init (PID 1), no hidden path reads as anything, the private root and temporary
 * directories show only the way to their kept directories, which read, and the read-only paths
 * can't be written. Null when it works, else what went wrong.
 */
export async function probeSandbox(spec: SandboxSpec, nodePath: string): Promise<string | null> {
  const check = `const fs = require('node:fs')
const { relative, sep } = require('node:path')
const spec = JSON.parse(process.argv[1])
const fail = (message) => { console.error(message); process.exit(3) }
if (process.ppid !== 1) fail('not in a new PID namespace (parent ' + process.ppid + ')')
const { dir, keep } = spec.privateRoot ?? { dir: '', keep: [] }
for (const root of [dir, ...(spec.privateTempDirs ?? [])].filter(Boolean)) {
  const ways = [dir, ...keep].map((path) => relative(root, path)).filter((way) => way && way !== '..' && !way.startsWith('..' + sep))
  const kept = [...new Set(ways.map((way) => way.split(sep)[0]))].sort().join(', ')
  const seen = fs.readdirSync(root).sort().join(', ')
  if (seen !== kept) fail(root + ' shows ' + seen + ', not only ' + kept)
}
for (const path of keep) if (!fs.statSync(path).isDirectory()) fail(path + ' is not kept')
for (const path of spec.readOnlyPaths ?? []) {
  try { fs.writeFileSync(path + '/.svc-probe', '') } catch { continue }
  fail(path + ' is still writable')
}
for (const path of spec.hiddenPaths) {
  let entries = null
  try { entries = fs.statSync(path).isDirectory() ? fs.readdirSync(path) : [fs.readFileSync(path, 'utf8')].filter(Boolean) } catch {}
  if (entries && entries.length) fail(path + ' is still readable')
}`
  const [command, args] = sandboxed(spec, nodePath, ['-e', check, JSON.stringify(spec)])
  return new Promise((resolveProblem) => {
    let output = ''
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(command, args, { env: { PATH: SANDBOX_PATH }, stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (error) {
      resolveProblem((error as Error).message)
      return
    }
    const collect = (chunk: Buffer) => {
      output = (output + chunk).slice(-2000)
    }
    child.stdout?.on('data', collect)
    child.stderr?.on('data', collect)
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    child.once('error', (error) => {
      clearTimeout(timer)
      resolveProblem(`${command}: ${error.message}`)
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolveProblem(null)
      else resolveProblem(output.trim() || `the probe exited with ${code ?? signal}`)
    })
  })
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path)
  } catch {
    return null
  }
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

function isInside(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(ancestor.endsWith(sep) ? ancestor : `${ancestor}${sep}`)
}
