'use strict'
// The shared Chromium of one runner: a Playwright browser server that runs connect to, each with
// its own context. It exits when its parent goes away (stdin closes) or the browser dies.
const { chromium } = require('playwright-core')

const options = JSON.parse(process.argv[2])

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
