/**
 * Memoizes a schema compiler for the life of the process, by schema object and by its JSON text. Routes
 * build many of their schemas when they are registered, so equal schemas arrive as new objects with each
 * app; compiling them again cost a test process ~2 s of CPU per app built, and it builds hundreds.
 */
export function compiledOnce<T>(compile: (schema: object) => T): (schema: object) => T {
  const byObject = new WeakMap<object, T>()
  const byText = new Map<string, T>()
  return (schema) => {
    const known = byObject.get(schema)
    if (known !== undefined) return known
    const text = JSON.stringify(schema)
    let compiled = byText.get(text)
    if (compiled === undefined) {
      compiled = compile(schema)
      byText.set(text, compiled)
    }
    byObject.set(schema, compiled)
    return compiled
  }
}

/** What `compiledOnFirstUse` made and no call has compiled yet, for `compilePending`. */
const pending = new Set<() => void>()

/**
 * A validator or serializer that compiles its schema on first use. A server has hundreds of route
 * schemas and a process calls few of their routes: compiled at start they took ~20 MB of its idle RSS.
 * Ajv's `errors` (which Fastify reads after a failed call) are copied over.
 */
export function compiledOnFirstUse<V extends ((data: unknown) => unknown) & { errors?: unknown }>(
  compile: () => V,
): V {
  let compiled: V | undefined
  const compileNow = () => {
    compiled ??= compile()
    pending.delete(compileNow)
    return compiled
  }
  pending.add(compileNow)
  const validate = ((data: unknown) => {
    const valid = (compiled ?? compileNow())(data)
    validate.errors = compiled?.errors
    return valid
  }) as V
  return validate
}

/** Compiles every schema not compiled yet (a test's proof that each one compiles); answers how many. */
export function compilePending(): number {
  const count = pending.size
  for (const compileNow of [...pending]) compileNow()
  return count
}
