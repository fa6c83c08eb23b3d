export { readZip } from '../playwright/zip.ts'
export { selfSignedCertificate } from './certificate.ts'
export { freePort } from './free-port.ts'
export { type RecordedRequest, type RecordingProxy, startRecordingProxy } from './recording-proxy.ts'
