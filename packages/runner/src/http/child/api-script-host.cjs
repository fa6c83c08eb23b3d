'use strict'
// Runs an API check's setup and teardown scripts, in a process of their own (in the sandbox where it
// works). It reads one JSON message a line on stdin, `{ phase, scripts, request | response, limits }`,
// runs the phase's scripts in order with `request` (setup) or `response` (teardown) in scope, and
// answers one line on stdout: MARK, then `{ logs, request | response }` or `{ logs, error }`.
const { createRequire, isBuiltin } = require('node:module')
const { createInterface } = require('node:readline')
const { format } = require('node:util')

const MARK = 'svc-api-script:'
const answer = process.stdout.write.bind(process.stdout)
const limits = JSON.parse(process.argv[2])
const allowed = new Set(limits.allowedPackages)
const baseRequire = createRequire(__filename)

// Without the sandbox nothing else stops the process when its runner dies.
const parentPid = Number(process.env.SVC_PARENT_PID)
delete process.env.SVC_PARENT_PID
if (parentPid) {
  setInterval(() => {
    if (process.ppid !== parentPid) process.kill(process.pid, 'SIGKILL')
  }, 500).unref()
}

let logs = []
let logChars = 0
function log(level, args) {
  if (logs.length >= limits.maxLogs || logChars > limits.maxLogChars) return
  let text = format(...args)
  if (text.length > limits.maxLogText) text = `${text.slice(0, limits.maxLogText)}… (cut)`
  logChars += text.length
  logs.push({ time: new Date().toISOString(), level, text })
}
for (const [name, level] of [
  ['log', 'info'],
  ['info', 'info'],
  ['debug', 'debug'],
  ['warn', 'warn'],
  ['error', 'error'],
  ['trace', 'debug'],
]) {
  console[name] = (...args) => log(level, args)
}
const captured = (level) => (chunk, encoding, done) => {
  log(level, [String(chunk).replace(/\n$/, '')])
  if (typeof encoding === 'function') encoding()
  else if (typeof done === 'function') done()
  return true
}
process.stdout.write = captured('info')
process.stderr.write = captured('error')

/** Node's built-ins and the runtime's packages, as browser checks have them. */
function scriptRequire(specifier) {
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : specifier.split('/')[0]
  if (!isBuiltin(specifier) && !allowed.has(name)) {
    throw new Error(
      `Cannot require '${specifier}': available are Node.js built-ins and ${[...allowed].join(', ')}`,
    )
  }
  return baseRequire(specifier)
}

const AsyncFunction = (async () => {}).constructor
let failPhase = null

async function runPhase(message) {
  logs = []
  logChars = 0
  const scope = { request: message.request, response: message.response }
  for (const script of message.scripts) {
    try {
      const run = new AsyncFunction('request', 'response', 'require', script.source)
      await new Promise((resolve, reject) => {
        failPhase = reject
        run(scope.request, scope.response, scriptRequire).then(resolve, reject)
      })
    } catch (error) {
      return { logs, error: { script: script.name, message: messageOf(error) } }
    } finally {
      failPhase = null
    }
  }
  return { logs, request: scope.request, response: scope.response }
}

function messageOf(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  return String(error)
}

function send(result) {
  answer(`${MARK}${JSON.stringify(result)}\n`)
}

// An error thrown later by the script's own callbacks fails the phase it belongs to.
// Between phases it is logged.
const late = (error) => {
  if (failPhase) failPhase(error)
  else log('error', [messageOf(error)])
}
process.on('uncaughtException', late)
process.on('unhandledRejection', late)

let queue = Promise.resolve()
createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(async () => send(await runPhase(JSON.parse(line))))
})
