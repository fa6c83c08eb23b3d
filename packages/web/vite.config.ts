import { defineConfig } from 'vite'

// The dev server proxies the API to a local `npm start` (PORT 3000), so `npm run dev` works beside it.
const api = process.env.SVC_DEV_API ?? 'http://127.0.0.1:3000'
const proxied = ['/v1', '/v3', '/admin', '/status', '/ping', '/openapi.json', '/docs', '/next']

export default defineConfig({
  root: 'src/app',
  base: '/',
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
