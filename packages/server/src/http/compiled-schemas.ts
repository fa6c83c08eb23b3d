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
