import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import { defineConfig, type Plugin } from 'vite'
import { OVERVIEW_PAGE_SIZE } from './src/app/overview-page-size.ts'

// The dev server proxies the API to a local `npm start` (PORT 3000), so `npm run dev` works beside it.
const api = process.env.SVC_DEV_API ?? 'http://127.0.0.1:3000'
const proxied = ['/v1', '/v3', '/admin', '/status', '/ping', '/openapi.json', '/docs', '/next']

/** index.html's early read of the overview asks the app's page size, from the one module that holds it. */
function overviewPageSize(): Plugin {
  return {
    name: 'svc-overview-page-size',
    transformIndexHtml: (html) => html.replaceAll('__OVERVIEW_PAGE_SIZE__', String(OVERVIEW_PAGE_SIZE)),
  }
}

const COMPRESSIBLE = /\.(js|css|html|svg|json)$/
const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/**
 * Writes a `.br` and a `.gz` beside every text file of the build, once, at their best compression: the
 * server sends them to browsers that accept them (@fastify/static's preCompressed) without compressing
 * per request.
 */
function precompress(): Plugin {
  let outDir = ''
  return {
    name: 'svc-precompress',
    apply: 'build',
    configResolved(config) {
      // Wherever this build writes (`--outDir` too), not only dist.
      outDir = resolve(config.root, config.build.outDir)
    },
    async closeBundle() {
      const files = (await readdir(outDir, { recursive: true })).filter(
        // Not .vite/manifest.json: the server never sends a dotfile.
        (file) => COMPRESSIBLE.test(file) && !file.startsWith('.'),
      )
      await Promise.all(
        files.map(async (file) => {
          const path = join(outDir, file)
          const content = await readFile(path)
          if (content.length < 1024) return
          const br = await brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
          await writeFile(`${path}.br`, br)
          await writeFile(`${path}.gz`, await gzipped(content, { level: 9 }))
        }),
      )
    },
  }
}

export default defineConfig({
  root: 'src/app',
  base: '/',
  plugins: [overviewPageSize(), precompress()],
  build: {
    outDir: '../../dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      // TanStack Query's "use client" marks are for server components, which a browser-only app has none of.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning)
      },
    },
    // The report bench/web.ts reads to measure the first page's JavaScript.
    manifest: true,
  },
  server: { proxy: Object.fromEntries(proxied.map((path) => [path, { target: api, changeOrigin: false }])) },
  oxc: { jsx: { runtime: 'automatic' } },
})
