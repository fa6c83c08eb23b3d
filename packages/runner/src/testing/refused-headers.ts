/**
 * One header of each kind the request-header rule refuses at save (400): rows stored by a version before
 * that rule may still carry them, and senders must leave them out.
 */
export const HEADERS_REFUSED_AT_SAVE: readonly { key: string; value: string }[] = [
  { key: 'Keep-Alive', value: 'timeout=5' },
  { key: 'Upgrade', value: 'websocket' },
  { key: 'Transfer-Encoding', value: 'chunked' },
  { key: 'Content-Length', value: '0' },
  { key: 'Expect', value: '100-continue' },
  { key: 'Proxy-Connection', value: 'keep-alive' },
  { key: 'HTTP2-Settings', value: 'AAMAAABkAARAAAAAAAIAAAAA' },
  { key: 'TE', value: 'gzip' },
  { key: 'Connection', value: 'close, X-Foo' },
]
