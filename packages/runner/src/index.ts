export { type DnsJob, type DnsRunResult, runDnsCheck } from './dns/run-dns-check.ts'
export { type CertificateReading, readCertificate } from './http/read-certificate.ts'
export { type HttpJob, type HttpRunResult, runHttpCheck } from './http/run-http-check.ts'
export { type IcmpJob, type IcmpRunResult, runIcmpCheck } from './icmp/run-icmp-check.ts'
export {
  type ArtifactFile,
  chromiumAvailable,
  DEFAULT_CHROMIUM_PATH,
  DEFAULT_TIMEOUTS_MS,
  ffmpegPath,
  type LogEntry,
  type NetworkEntry,
  type PageResult,
  PlaywrightPool,
  type PlaywrightPoolOptions,
  runAutomationCheck,
  runBrowserCheck,
  runMultiStepCheck,
  SCRIPT_SANDBOX_MODES,
  type Screenshot,
  type ScriptCheckResult,
  type ScriptCheckType,
  type ScriptError,
  type ScriptJob,
  type ScriptRunnerContext,
  type ScriptRunResult,
  type ScriptSandboxMode,
  type ScriptSandboxStatus,
  type ScriptVariable,
  type StepOutcome,
  type TestOutcome,
  type WebVitals,
} from './playwright/index.ts'
export {
  cancelledOutcome,
  DETAIL_KEYS,
  type JobRunnerContext,
  type RunnerJob,
  type RunOutcome,
  runJob,
  UPTIME_CHECK_TYPES,
} from './run-job.ts'
export { runSslCheck, type SslCheckResult, type SslJob, type SslRunResult } from './ssl/run-ssl-check.ts'
export { runTcpCheck, type TcpJob, type TcpRunResult } from './tcp/run-tcp-check.ts'
export * from './types.ts'
