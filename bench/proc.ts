import { readFileSync } from 'node:fs'

/** A process's user + system CPU time so far, all its threads (clock ticks of 10 ms, from /proc). */
export function cpuMicrosOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** A process's resident memory now, in MB. */
export function rssMb(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
  return Number(match?.[1] ?? 0) / 1024
}
