import { getServers } from 'node:dns'
import { connect, isIP } from 'node:net'
import { type Assertion, type AssertionOutcome, evaluateAssertion, parseNameServer } from '@svc/core'
import dns2 from 'dns2'
import { describeAssertionFailure } from '../describe-assertion.ts'
import { classifyNetworkError } from '../http/classify-error.ts'
import { type RunError, type RunnerContext, type RunVerdict, timedVerdict } from '../types.ts'
import { presentSvcb } from './svcb.ts'

export interface DnsJob {
  request: {
    query: string
    recordType: string
    nameServer?: string | null
    port?: number
    protocol?: 'UDP' | 'TCP'
    assertions?: Assertion[]
  }
  degradedResponseTime: number
  maxResponseTime: number
  shouldFail: boolean
}

export interface DnsRecord {
  name: string
  type: string
  ttl: number
  value: string
}

export interface DnsCheckResult {
  query: string
  recordType: string
  nameServer: string
  port: number
  protocol: 'UDP' | 'TCP'
  responseCode: string | null
  answers: DnsRecord[]
  timingPhases: { total: number }
  assertions: AssertionOutcome[]
}

export type DnsRunResult = RunVerdict & { checkResult: DnsCheckResult }

// dns2 has no HTTPS type (RFC 9460, 65). Its clients and ours look a question's type up by name in
// Packet.TYPE, so the name is registered there once; with no decoder for the code, dns2 keeps an answer's
// RDATA as bytes (`data`), which `presentSvcb` reads.
if (!Object.hasOwn(dns2.Packet.TYPE, 'HTTPS')) Object.assign(dns2.Packet.TYPE, { HTTPS: 65 })

const TYPE_NAMES = Object.fromEntries(Object.entries(dns2.Packet.TYPE).map(([name, code]) => [code, name]))
const RCODE_NAMES = Object.fromEntries(Object.entries(dns2.Packet.RCODE).map(([name, code]) => [code, name]))

/** Asks `nameServer` (default: the system's first resolver) over UDP or TCP and checks the answer. */
export async function runDnsCheck(job: DnsJob, ctx: RunnerContext): Promise<DnsRunResult> {
  const startedAt = ctx.now()
  const started = performance.now()
  const written = job.request.nameServer || getServers()[0] || '127.0.0.1'
  // `host:port` and `[IPv6]:port` are accepted; the port written there wins over the `port` field.
  const address = parseNameServer(written)
  const nameServer = address?.host ?? written
  const port = address?.port ?? job.request.port ?? 53
  const protocol = job.request.protocol ?? 'UDP'
  let responseCode: string | null = null
  let answers: DnsRecord[] = []
  let error: RunError | null = null
  const outcome = { timedOut: false }
  try {
    if (!address) {
      throw new Error(
        `Invalid name server "${written}": write a host name or IP address, optionally with a port (host:port, [IPv6]:port)`,
      )
    }
    const response = await askNameServer(job, nameServer, port, outcome)
    responseCode = RCODE_NAMES[response.header.rcode] ?? String(response.header.rcode)
    answers = response.answers.map((answer) => toRecord(answer as unknown as Record<string, unknown>))
  } catch (caught) {
    error = classifyNetworkError(caught, outcome.timedOut)
  }
  const total = performance.now() - started
  const assertions = error ? [] : evaluateAll(job.request.assertions ?? [], { responseCode, answers, total })
  const failed = assertions.find((a) => !a.passed)
  if (!error && failed) error = { type: 'ASSERTION', message: describeAssertionFailure(failed) }
  // An error code fails the run unless the check says which code it expects (as Checkly does).
  const expectsCode = job.request.assertions?.some((a) => a.source === 'RESPONSE_CODE')
  if (!error && !expectsCode && responseCode !== 'NOERROR') {
    error = { type: 'ASSERTION', message: `DNS response code ${responseCode}` }
  }
  // shouldFail inverts what the name server answered (an NXDOMAIN expected); no answer still fails.
  const invertible = responseCode !== null
  const verdict = timedVerdict(job, { error, responseTime: total, startedAt, invertible }, ctx)
  return {
    ...verdict,
    checkResult: {
      query: job.request.query,
      recordType: job.request.recordType,
      nameServer,
      port,
      protocol,
      responseCode,
      answers,
      timingPhases: { total: Math.round(total * 100) / 100 },
      assertions,
    },
  }
}

/**
 * The name server's answer to the job's question over its protocol, within maxResponseTime; sets
 * `outcome.timedOut` when that ran out.
 */
async function askNameServer(job: DnsJob, nameServer: string, port: number, outcome: { timedOut: boolean }) {
  if (!Object.hasOwn(dns2.Packet.TYPE, job.request.recordType)) {
    throw new Error(`Record type ${job.request.recordType} is not supported by this runner yet`)
  }
  const abort = new AbortController()
  const { query, recordType } = job.request
  const overTcp = () => queryOverTcp(nameServer, port, query, recordType, abort.signal)
  const resolve = async () => {
    if ((job.request.protocol ?? 'UDP') === 'TCP') return overTcp()
    const udp = dns2.UDPClient({
      dns: nameServer,
      port,
      socketType: isIP(nameServer) === 6 ? 'udp6' : 'udp4',
      timeout: job.maxResponseTime,
      retryOverTCP: false,
    })
    const answer = await udp(query, recordType)
    // Truncated (TC): the records didn't fit in a UDP answer; resolvers ask again over TCP.
    return answer.header.tc ? overTcp() : answer
  }
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      outcome.timedOut = true
      abort.abort()
      reject(new Error('timeout'))
    }, job.maxResponseTime)
  })
  return Promise.race([resolve(), deadline]).finally(() => clearTimeout(timer))
}

/**
 * One query over TCP (RFC 1035 §4.2.2: a two-byte length, then the message) on a socket the deadline
 * closes. dns2's TCPClient leaves a silent server's connection open, and splits an IPv6 address at ':'.
 */
async function queryOverTcp(
  host: string,
  port: number,
  name: string,
  type: string,
  signal: AbortSignal,
): Promise<InstanceType<typeof dns2.Packet>> {
  const { Packet } = dns2
  const query = new Packet()
  query.header.id = Packet.uuid()
  query.header.rd = 1
  const question = { name, class: Packet.CLASS.IN, type: Packet.TYPE[type as keyof typeof Packet.TYPE] }
  // dns2 types questions as its encodable class; plain ones are what its own clients push.
  query.questions.push(question as (typeof query.questions)[number])
  const message = query.toBuffer()
  const length = Buffer.alloc(2)
  length.writeUInt16BE(message.length)
  const socket = connect({ host, port, signal })
  // readStream's rejection reports a failure; an 'error' without a listener would end the process.
  socket.on('error', () => {})
  try {
    socket.write(Buffer.concat([length, message]))
    const data = await Packet.readStream(socket)
    if (!data.length) throw new Error('The name server closed the connection without an answer')
    return Packet.parse(data)
  } finally {
    socket.destroy()
  }
}

function evaluateAll(
  assertions: Assertion[],
  response: { responseCode: string | null; answers: DnsRecord[]; total: number },
): AssertionOutcome[] {
  const text = response.answers.map((a) => `${a.name} ${a.ttl} IN ${a.type} ${a.value}`).join('\n')
  const sources: Record<string, unknown> = {
    RESPONSE_CODE: response.responseCode,
    RESPONSE_TIME: Math.round(response.total),
    TEXT_ANSWER: text,
    JSON_ANSWER: response.answers,
  }
  return assertions.map((assertion) => evaluateAssertion(assertion, sources[assertion.source]))
}

function toRecord(answer: Record<string, unknown>): DnsRecord {
  const type = TYPE_NAMES[answer.type as number] ?? String(answer.type)
  return { name: String(answer.name), type, ttl: Number(answer.ttl ?? 0), value: recordValue(type, answer) }
}

function recordValue(type: string, answer: Record<string, unknown>): string {
  switch (type) {
    case 'A':
    case 'AAAA':
      return String(answer.address)
    case 'MX':
      return `${answer.priority} ${answer.exchange}`
    case 'TXT':
      return Array.isArray(answer.data) ? answer.data.join('') : String(answer.data)
    case 'CNAME':
    case 'NS':
      return String(answer.domain ?? answer.ns ?? answer.data)
    case 'SRV':
      return `${answer.priority} ${answer.weight} ${answer.port} ${answer.target}`
    case 'CAA':
      return `${answer.flags} ${answer.tag} "${answer.value}"`
    case 'HTTPS':
      return answer.data instanceof Uint8Array ? presentSvcb(answer.data) : JSON.stringify(answer)
    case 'SOA':
      return `${answer.primary} ${answer.admin} ${answer.serial} ${answer.refresh} ${answer.retry} ${answer.expiration} ${answer.minimum}`
    default:
      return JSON.stringify(answer)
  }
}
