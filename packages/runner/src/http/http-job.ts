import type { Assertion, ClientCertificateMaterial } from '@svc/core'

export interface HttpJob {
  checkType: 'API' | 'URL'
  request: {
    method?: string
    url: string
    headers?: { key: string; value: string }[]
    queryParameters?: { key: string; value: string }[]
    body?: string
    bodyType?: 'JSON' | 'FORM' | 'RAW' | 'GRAPHQL' | 'NONE'
    basicAuth?: { username: string; password: string } | null
    followRedirects?: boolean
    skipSSL?: boolean
    ipFamily?: 'IPv4' | 'IPv6'
    assertions?: Assertion[]
  }
  degradedResponseTime: number
  maxResponseTime: number
  shouldFail: boolean
  /** Set by the server on an API check whose host matches one of its account's client certificates. */
  clientCertificate?: ClientCertificateMaterial | null
}
