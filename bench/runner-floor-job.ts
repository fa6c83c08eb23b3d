import type { HttpJob } from '@svc/runner'

/** The URL check that bench:runner-floor runs against its target, on the main thread or a worker. */
export function floorJob(origin: string): HttpJob {
  return {
    checkType: 'URL',
    request: { url: `${origin}/health` },
    degradedResponseTime: 10_000,
    maxResponseTime: 20_000,
    shouldFail: false,
  }
}
