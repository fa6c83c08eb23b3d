'use strict'
// Loaded with --require into every process of a script run (the script itself, or the Playwright
// test runner and its workers). It guards imports, points browsers at the shared Chromium (through
// the run's proxy, if any), and records console, network, web vitals, screenshots and (for plain
// scripts) traces as JSON lines.
const { randomUUID } = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { isBuiltin, registerHooks } = require('node:module')
const { pathToFileURL } = require('node:url')

const config = JSON.parse(fs.readFileSync(process.env.SVC_RUN_CONFIG, 'utf8'))

// The run's first process (only: its test workers don't inherit the variable) stops its whole group
// when the process that started it is gone, even killed, so nothing of the run outlives it.
const parentPid = Number(process.env.SVC_PARENT_PID)
delete process.env.SVC_PARENT_PID
if (parentPid) {
  const stopIfOrphaned = () => {
    if (process.ppid === parentPid) return
    try {
      process.kill(-process.pid, 'SIGKILL')
    } catch {}
    process.kill(process.pid, 'SIGKILL')
  }
  stopIfOrphaned()
  setInterval(stopIfOrphaned, 500).unref()
}
const runDirUrl = `${pathToFileURL(config.runDir).href}/`
const allowed = new Set(config.allowedPackages)
const MAX_EVENTS = 5000
let events = 0

function emit(event) {
  if (++events > MAX_EVENTS) return
  try {
    fs.appendFileSync(
      config.eventsFile,
      `${JSON.stringify({ ...event, pid: process.pid, at: Date.now() })}\n`,
    )
  } catch {}
}

function packageNameOf(specifier) {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    const fromScript =
      context.parentURL?.startsWith(runDirUrl) && !context.parentURL.includes('/node_modules/')
    const bare = !/^(\.|\/|file:|data:|node:)/.test(specifier) && !isBuiltin(specifier)
    if (fromScript && bare && !allowed.has(packageNameOf(specifier))) {
      const error = new Error(
        `Cannot import '${specifier}': runtime ${config.runtimeId} does not provide '${packageNameOf(specifier)}'. ` +
          `Available: Node.js built-ins (node:*), ${[...allowed].sort().join(', ')}.`,
      )
      error.code = 'SVC_FORBIDDEN_IMPORT'
      throw error
    }
    return nextResolve(specifier, context)
  },
})

const playwright = require('playwright-core')
let pageCounter = 0
let openPages = 0
let screenshotCounter = 0
let traceCounter = 0
const pageIds = new WeakMap()
const trackedContexts = new Set()

const VITALS_SCRIPT = `(() => {
  if (window !== window.top || window.__svcVitalsSnapshot) return;
  const v = { LCP: null, CLS: 0, TBT: 0, FCP: null, TTFB: null };
  let windowValue = 0, windowStart = 0, lastShift = 0, timer;
  const snapshot = () => ({ url: location.href, ...v });
  const report = () => { try { window.__svcVitals && window.__svcVitals(snapshot()); } catch {} };
  const schedule = () => { clearTimeout(timer); timer = setTimeout(report, 100); };
  const observe = (type, onEntry) => {
    try {
      new PerformanceObserver((list) => { list.getEntries().forEach(onEntry); schedule(); })
        .observe({ type, buffered: true });
    } catch {}
  };
  observe('paint', (e) => { if (e.name === 'first-contentful-paint') v.FCP = e.startTime; });
  observe('largest-contentful-paint', (e) => { v.LCP = e.startTime; });
  observe('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    if (e.startTime - lastShift > 1000 || e.startTime - windowStart > 5000) { windowStart = e.startTime; windowValue = 0; }
    windowValue += e.value; lastShift = e.startTime; v.CLS = Math.max(v.CLS, windowValue);
  });
  observe('longtask', (e) => { v.TBT += Math.max(0, e.duration - 50); });
  observe('navigation', (e) => { v.TTFB = e.responseStart; });
  window.__svcVitalsSnapshot = snapshot;
  addEventListener('pagehide', report);
})()`

function pageIdOf(page) {
  if (!page) return null
  let id = pageIds.get(page)
  if (!id) {
    id = `${process.pid}:${++pageCounter}`
    pageIds.set(page, id)
  }
  return id
}

function internal(owner, fn) {
  return typeof owner._wrapApiCall === 'function' ? owner._wrapApiCall(fn, { internal: true }) : fn()
}

function insideOutputDir(file) {
  return file && config.outputDir && path.resolve(file).startsWith(config.outputDir + path.sep)
}

function saveScreenshot(buffer, pageId, name, failure) {
  fs.mkdirSync(config.screenshotsDir, { recursive: true })
  const file = path.join(config.screenshotsDir, `${process.pid}-${++screenshotCounter}.png`)
  fs.writeFileSync(file, buffer)
  emit({ type: 'screenshot', file, pageId, name, failure })
}

function watchPage(page) {
  const pageId = pageIdOf(page)
  openPages++
  emit({ type: 'page', pageId, url: page.url() })
  page.on('close', () => openPages--)
  if (openPages > config.maxPages) {
    emit({
      type: 'limit',
      message: `A run may have at most ${config.maxPages} pages open at once; closed page ${pageId}`,
    })
    page.close().catch(() => {})
    return
  }
  page.on('console', (message) => {
    emit({
      type: 'console',
      pageId,
      level: message.type(),
      text: message.text().slice(0, config.maxText),
      location: message.location(),
    })
  })
  page.on('pageerror', (error) => {
    emit({
      type: 'console',
      pageId,
      level: 'error',
      text: `Uncaught ${error.stack || error.message}`.slice(0, config.maxText),
    })
  })
  const onRequestDone = async (request, failure) => {
    const response = failure ? null : await request.response().catch(() => null)
    const timing = request.timing()
    emit({
      type: 'request',
      pageId,
      url: request.url(),
      method: request.method(),
      resourceType: request.resourceType(),
      status: response ? response.status() : null,
      startTime: timing.startTime > 0 ? timing.startTime : Date.now(),
      duration: timing.responseEnd >= 0 ? timing.responseEnd : null,
      failure: failure ? failure.errorText : null,
      requestHeaders: request.headers(),
      responseHeaders: response ? response.headers() : null,
    })
  }
  page.on('requestfinished', (request) => onRequestDone(request, null))
  page.on('requestfailed', (request) => onRequestDone(request, request.failure() || { errorText: 'failed' }))
  const screenshot = page.screenshot
  page.__svcRawScreenshot = (options) => screenshot.call(page, options)
  page.screenshot = async function (options = {}) {
    const buffer = await screenshot.call(this, options)
    if (!insideOutputDir(options.path)) {
      saveScreenshot(buffer, pageId, options.path ? path.basename(options.path) : null, false)
    }
    return buffer
  }
}

function watchRequestContext(requestContext) {
  if (!requestContext || requestContext.__svcWatched) return
  requestContext.__svcWatched = true
  const innerFetch = requestContext._innerFetch
  requestContext._innerFetch = async function (options = {}) {
    const startTime = Date.now()
    const started = performance.now()
    const url = options.url !== undefined ? options.url : options.request?.url()
    const method = options.method || options.request?.method() || 'GET'
    try {
      const response = await innerFetch.call(this, options)
      emit({
        type: 'request',
        pageId: null,
        url: response.url(),
        method,
        resourceType: 'api',
        status: response.status(),
        startTime,
        duration: performance.now() - started,
        failure: null,
        requestHeaders: options.headers || null,
        responseHeaders: response.headers(),
      })
      return response
    } catch (error) {
      emit({
        type: 'request',
        pageId: null,
        url: String(url),
        method,
        resourceType: 'api',
        status: null,
        startTime,
        duration: performance.now() - started,
        failure: String(error?.message ? error.message.split('\n')[0] : error),
        requestHeaders: options.headers || null,
        responseHeaders: null,
      })
      throw error
    }
  }
}

async function collectVitals(context) {
  await Promise.all(
    context.pages().map(async (page) => {
      const snapshot = await Promise.race([
        internal(page, () =>
          page.evaluate('window.__svcVitalsSnapshot && window.__svcVitalsSnapshot()'),
        ).catch(() => null),
        new Promise((resolve) => setTimeout(() => resolve(null), 2000).unref()),
      ])
      if (snapshot) emit({ type: 'vitals', pageId: pageIdOf(page), vitals: snapshot })
    }),
  )
}

function currentTestFailed() {
  try {
    const info = require('playwright/test').test.info()
    return info.errors.length > 0 || (info.status !== undefined && info.status !== info.expectedStatus)
  } catch {
    return false
  }
}

async function screenshotPages(context) {
  for (const page of context.pages()) {
    const take = page.__svcRawScreenshot || ((options) => page.screenshot(options))
    const buffer = await internal(page, () => take({ timeout: 5000 })).catch(() => null)
    if (buffer) saveScreenshot(buffer, pageIdOf(page), null, true)
  }
}

async function finishContext(context) {
  if (!trackedContexts.has(context)) return
  trackedContexts.delete(context)
  await collectVitals(context)
  if (context.__svcTracing) {
    fs.mkdirSync(config.tracesDir, { recursive: true })
    const file = path.join(config.tracesDir, `${process.pid}-${++traceCounter}.zip`)
    await internal(context, () => context.tracing.stop({ path: file }))
      .then(() => emit({ type: 'trace', file }))
      .catch(() => {})
  }
}

function insideTest() {
  try {
    return Boolean(require('playwright/test').test.info())
  } catch {
    return false
  }
}

// Playwright names a test's trace recording after the test's id (a hash of its file and title), and the
// shared browser server writes every recording into one directory: two runs of the same check at once
// would write, and zip, each other's files. The run's own suffix keeps each recording apart.
const TRACE_NAME_SUFFIX = randomUUID()
function ownTraceNames(tracing) {
  if (!tracing || tracing.__svcOwnNames) return
  tracing.__svcOwnNames = true
  for (const method of ['start', 'startChunk']) {
    const original = tracing[method]
    tracing[method] = (options = {}) =>
      original.call(
        tracing,
        options.name ? { ...options, name: `${options.name}-${TRACE_NAME_SUFFIX}` } : options,
      )
  }
}

// The run's proxy (its location's, or the agent's HTTP(S)_PROXY) for every browser and `request`
// context that names none. In a test Playwright applies `use.proxy` (the run's, unless the script's
// config or `test.use` set another), and this listener runs before Playwright's: it steps aside there.
function withRunProxy(options) {
  if (!config.proxy || options.proxy !== undefined) return
  if (config.mode === 'test' && insideTest()) return
  options.proxy = config.proxy
}

playwright._instrumentation.addListener({
  async runBeforeCreateBrowserContext(options) {
    withRunProxy(options)
    if (options.recordVideo && !config.videos) {
      delete options.recordVideo
      emit({
        type: 'limit',
        message: 'No video was recorded: this runner has no ffmpeg (apt-get install ffmpeg)',
      })
    }
  },
  async runBeforeCreateRequestContext(options) {
    withRunProxy(options)
  },
  async runAfterCreateBrowserContext(context) {
    trackedContexts.add(context)
    ownTraceNames(context.tracing)
    ownTraceNames(context.request.tracing)
    await internal(context, async () => {
      await context.exposeBinding('__svcVitals', (source, vitals) => {
        emit({ type: 'vitals', pageId: pageIdOf(source.page), vitals })
      })
      await context.addInitScript(VITALS_SCRIPT)
      if (config.mode === 'plain') {
        await context.tracing.start({ screenshots: true, snapshots: true, sources: true })
        context.__svcTracing = true
      }
    })
    for (const page of context.pages()) watchPage(page)
    context.on('page', watchPage)
    watchRequestContext(context.request)
  },
  async runBeforeCloseBrowserContext(context) {
    if (config.mode === 'test' && currentTestFailed()) await screenshotPages(context)
    await finishContext(context)
  },
  async runAfterCreateRequestContext(requestContext) {
    ownTraceNames(requestContext.tracing)
    watchRequestContext(requestContext)
  },
})

// Browsers come from the Chromium this runner shares among the account's runs: launching connects to it, so closing
// only disconnects, and a run can't take the browser of other runs down.
const DEBIAN_ONLY = 'only Chromium is available in svc runs'
async function connectShared(launchOptions = {}) {
  const wsEndpoint = process.env.PW_TEST_CONNECT_WS_ENDPOINT
  if (!wsEndpoint) throw new Error('No browser is available for this run (Chromium was not found)')
  const browser = await playwright.chromium.connect(wsEndpoint)
  // A proxy given to launch() is the shared browser's own: it becomes this browser's contexts' proxy.
  if (launchOptions.proxy) {
    const newContext = browser.newContext.bind(browser)
    browser.newContext = (options = {}) =>
      newContext(options.proxy === undefined ? { ...options, proxy: launchOptions.proxy } : options)
  }
  const close = browser.close.bind(browser)
  browser.close = async (options) => {
    await Promise.all(browser.contexts().map(finishContext))
    return close(options)
  }
  return browser
}
playwright.chromium.launch = connectShared
playwright.chromium.launchPersistentContext = async (_userDataDir, options = {}) => {
  const browser = await connectShared()
  const context = await browser.newContext(options)
  const closeContext = context.close.bind(context)
  context.close = async (closeOptions) => {
    await closeContext(closeOptions)
    await browser.close()
  }
  return context
}
// Tests connect to the shared browser as their project's browserName: a firefox or webkit project
// would silently get Chromium, and pass for a browser it never ran in.
for (const name of ['firefox', 'webkit']) {
  const unavailable = async () => {
    throw new Error(`${name} is not available: ${DEBIAN_ONLY}`)
  }
  playwright[name].launch = unavailable
  playwright[name].launchPersistentContext = unavailable
  playwright[name].connect = unavailable
}

if (config.mode === 'plain') {
  const started = performance.now()
  let failing = false
  const fail = async (error) => {
    if (failing) return
    failing = true
    emit({
      type: 'scriptError',
      message: String(error?.message ?? error).slice(0, config.maxText),
      stack: error?.stack ? String(error.stack).slice(0, config.maxText) : null,
    })
    await Promise.race([
      (async () => {
        for (const context of [...trackedContexts]) {
          await screenshotPages(context)
          await finishContext(context)
        }
      })(),
      new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
    ])
    process.exit(1)
  }
  process.on('uncaughtException', fail)
  process.on('unhandledRejection', fail)
  process.on('exit', (code) => emit({ type: 'exit', code, duration: performance.now() - started }))
}
