/**
 * What the tests do when a component they need (Chromium, ffmpeg, Ceph, ping, PostgreSQL) is missing.
 * In CI (CI=true) the run fails naming it: a green run must have run everything. On a newcomer's machine
 * the tests that need it are skipped, with one loud line per component.
 */

/** Whether the tests run in CI, where a missing component fails the run instead of skipping tests. */
export function inCi(): boolean {
  const ci = process.env.CI?.trim().toLowerCase()
  return ci === 'true' || ci === '1'
}

const announced = new Set<string>()

/**
 * Answers the skip reason for the tests that need `component`; in CI, throws an error naming it instead.
 * `tests` says which tests need it, `install` how to get it.
 */
export function missingComponent(component: string, tests: string, install: string): string {
  if (inCi()) {
    throw new Error(
      `CI=true and ${component} is missing: ${tests} can't run, and CI must not skip them (${install})`,
    )
  }
  const reason = `${component} missing: ${tests} SKIPPED (${install})`
  if (!announced.has(component)) {
    announced.add(component)
    console.warn(`!!!!!!!!!! ${reason} !!!!!!!!!!`)
  }
  return reason
}
