'use strict'
// The shared Chromium of one runner: a Playwright browser server that runs connect to, each with
// its own context. It exits when its parent goes away (stdin closes) or the browser dies.
const { accessSync, constants, mkdirSync, symlinkSync } = require('node:fs')
const { delimiter, dirname, join } = require('node:path')

const options = JSON.parse(process.argv[2])

useSystemFfmpeg()
const { chromium } = require('playwright-core')

/**
 * Videos (`use: { video }`) are recorded here, by the browser server, with the ffmpeg Playwright would
 * download; the system's (Debian's, on PATH: `ffmpeg.ts` finds the same) stands in at the path it looks.
 */
function useSystemFfmpeg() {
  const ffmpeg = (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'ffmpeg'))
    .find((path) => {
      try {
        accessSync(path, constants.X_OK)
        return true
      } catch {
        return false
      }
    })
  if (!ffmpeg || !process.env.HOME) return
  // Videos are not worth a browser that doesn't start: without the link, a test asking for one fails alone.
  try {
    const browsers = require(join(dirname(require.resolve('playwright-core/package.json')), 'browsers.json'))
    const { revision } = browsers.browsers.find((browser) => browser.name === 'ffmpeg')
    const registry = join(process.env.HOME, 'playwright-browsers')
    mkdirSync(join(registry, `ffmpeg-${revision}`), { recursive: true })
    symlinkSync(ffmpeg, join(registry, `ffmpeg-${revision}`, 'ffmpeg-linux'))
    process.env.PLAYWRIGHT_BROWSERS_PATH = registry
  } catch (error) {
    process.stderr.write(`videos can't be recorded: ${error.message}\n`)
  }
}

async function main() {
  const server = await chromium.launchServer({
    executablePath: options.executablePath,
    headless: true,
    host: '127.0.0.1',
    args: options.args,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  })
  server.on('close', () => process.exit(1))
  process.stdout.write(`${JSON.stringify({ wsEndpoint: server.wsEndpoint() })}\n`)
  const stop = () => server.close().finally(() => process.exit(0))
  process.stdin.on('end', stop)
  process.stdin.on('close', stop)
  process.stdin.resume()
  process.on('SIGTERM', stop)
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`)
  process.exit(1)
})
