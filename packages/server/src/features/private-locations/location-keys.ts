/**
 * Schedule rows and retries name where they run: a data-center location as itself, a private location
 * as `private:<id>` (ids, not slugs: slugs are unique only within an account).
 */
const PREFIX = 'private:'

export function privateLocationKey(id: string): string {
  return PREFIX + id
}

export function privateLocationIdOf(key: string): string | undefined {
  return key.startsWith(PREFIX) ? key.slice(PREFIX.length) : undefined
}
