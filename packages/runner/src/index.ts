export { type HttpJob, type HttpRunResult, runHttpCheck } from './http/run-http-check.ts'
export { type IcmpJob, type IcmpRunResult, runIcmpCheck } from './icmp/run-icmp-check.ts'
export { runTcpCheck, type TcpJob, type TcpRunResult } from './tcp/run-tcp-check.ts'
export * from './types.ts'
