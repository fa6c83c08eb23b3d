/** What iputils `ping` reports in its summary. */
export interface PingSummary {
  transmitted: number
  received: number
  packetLoss: number
  latency: { min: number; avg: number; max: number; stdDev: number } | null
}

/** Parses the summary lines of iputils `ping -n` (the Debian `iputils-ping` package). */
export function parsePingOutput(output: string): PingSummary | null {
  const counts = output.match(/(\d+) packets transmitted, (\d+) (?:packets )?received/)
  if (!counts) return null
  const transmitted = Number(counts[1])
  const received = Number(counts[2])
  const rtt = output.match(/= ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/)
  return {
    transmitted,
    received,
    packetLoss: transmitted === 0 ? 100 : Math.round(((transmitted - received) / transmitted) * 10_000) / 100,
    latency: rtt
      ? { min: Number(rtt[1]), avg: Number(rtt[2]), max: Number(rtt[3]), stdDev: Number(rtt[4]) }
      : null,
  }
}
