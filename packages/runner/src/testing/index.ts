export {
  browserTestsSkipReason,
  ffmpegSkipReason,
  pingSkipReason,
  videoTestsSkipReason,
} from '../playwright/testing.ts'
export { readZip } from '../playwright/zip.ts'
export { selfSignedCertificate } from './certificate.ts'
export { freePort } from './free-port.ts'
export { type Http1Request, startHeaderRecorder } from './header-recorder.ts'
export { type Http2Request, startHttp2Server } from './http2-server.ts'
export { listenOnLoopback } from './loopback.ts'
export { type MutualTlsMaterial, mutualTlsMaterial } from './mutual-tls.ts'
export { type RecordedRequest, type RecordingProxy, startRecordingProxy } from './recording-proxy.ts'
export { HEADERS_REFUSED_AT_SAVE } from './refused-headers.ts'
