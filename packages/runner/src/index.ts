export { type HttpJob, type HttpRunResult, runHttpCheck } from './http/run-http-check.ts'
export * from './types.ts'
