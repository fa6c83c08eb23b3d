import { registerHooks } from 'node:module'

const SELF = '@svc/cli'
let registered = false

/**
 * Makes a project's `import ... from '@svc/cli'` load this very copy of the constructs, from its sources
 * in the repository or its built JavaScript when installed, so that the constructs a project makes
 * register where this CLI collects them, whichever copy the project's node_modules would hold.
 */
export function resolveSelfImports(): void {
  if (registered) return
  registered = true
  const index = new URL(import.meta.url.endsWith('.ts') ? './index.ts' : './index.js', import.meta.url).href
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === SELF) return { url: index, shortCircuit: true }
      return nextResolve(specifier, context)
    },
  })
}
