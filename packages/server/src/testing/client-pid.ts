import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/**
 * Which of `pids` holds the loopback client socket `clientPort` → `serverPort`: the socket is found in
 * /proc/net/tcp and traced to the process holding it (call it while the client waits for an answer).
 */
export function pidOfClient(clientPort: number, serverPort: number, pids: number[]): number | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0')
  const line = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${hex(clientPort)}`) && f[2]?.endsWith(`:${hex(serverPort)}`))
  const inode = line?.[9]
  if (!inode) return undefined
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  })
}
