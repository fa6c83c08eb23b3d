/**
 * Preloaded by the npm scripts that start long-running processes (`node --import`), before the entry
 * module's imports load: with Node's compile cache, a start reuses the code it compiled and the
 * TypeScript it stripped the time before. On 2 shared cores a server started in ~1.5–1.7 s instead of
 * ~1.8–2.0 s, ~10 MB smaller: a cached start never loads the type stripper. Plain JavaScript, or this
 * file itself would load the stripper. The cache lives in NODE_COMPILE_CACHE, else `node-compile-cache`
 * in the system's temporary directory; one that can't be written is skipped.
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
import module from 'node:module'

module.enableCompileCache()
