import type { Evidence } from './evidence.ts'
import type { Phase } from './root-cause-analyses.schemas.ts'

/** The analysis an RCA answers: svc's own rules over the evidence; a model may rewrite `summary`. */
export interface Analysis {
  classification: string
  failingPhase: Phase
  phaseDetail: string | null
  since: string
  affectedLocations: Evidence['affectedLocations']
  healthyLocations: string[]
  changes: Evidence['changes']
  similarGroups: Evidence['similarGroups']
  rootCause: string
  userImpact: string
  summary: string
  nextSteps: string[]
  evidence: { description: string; artifacts: { name: string; type: string }[] }[]
  userContext: string
  referenceLinks: { url: string; title: string }[]
}

const PHASE_TEXT: Record<
  Phase,
  { classification: string; what: (detail: string | null) => string; steps: string[] }
> = {
  DNS: {
    classification: 'DNS_RESOLUTION',
    what: (detail) => `DNS resolution${detail ? ` of ${detail}` : ''} fails`,
    steps: [
      'Resolve the name from the affected location (dig or nslookup against its resolver) and compare with a healthy one.',
      'Check recent changes to the DNS records, their TTLs and the zone at the DNS provider.',
      "Check the status of the DNS provider and of the location's resolver.",
    ],
  },
  TCP: {
    classification: 'CONNECTION',
    what: (detail) => `Connecting to the target fails${detail ? ` (${detail})` : ''}`,
    steps: [
      'Check that the service listens on the port and that it is up behind the load balancer.',
      'Check firewall rules, security groups and IP allow lists for the affected locations.',
    ],
  },
  TLS: {
    classification: 'TLS_HANDSHAKE',
    what: () => 'The TLS handshake fails',
    steps: [
      'Inspect the served certificate chain (openssl s_client -showcerts) for expiry, hostname and intermediates.',
      'Check whether a certificate renewal or a load balancer change happened at the start.',
    ],
  },
  HTTP_STATUS: {
    classification: 'HTTP_STATUS',
    what: (detail) => `The target answers HTTP ${detail ?? 'errors'}`,
    steps: [
      'Look at the application and proxy logs for the failing requests at the start time.',
      'Check deployments and upstream dependencies of the service around the start time.',
    ],
  },
  ASSERTION: {
    classification: 'ASSERTION',
    what: () => 'The response no longer meets an assertion',
    steps: [
      'Compare a failing response with a passing one (body, headers, timing).',
      'If the new response is intended, update the assertion; otherwise look at the change that caused it.',
    ],
  },
  TIMEOUT: {
    classification: 'TIMEOUT',
    what: (detail) => `Runs time out${detail ? ` at ${detail}` : ''}`,
    steps: [
      'Look at which phase grew (latency shifts below) and at the load and saturation of the service.',
      'Check network paths from the affected locations; raise the timeout only if the slowness is expected.',
    ],
  },
  SCRIPT: {
    classification: 'SCRIPT',
    what: (detail) => `The script fails${detail ? ` at ${detail}` : ''}`,
    steps: [
      'Open the trace and the screenshot of a failing run at that line.',
      'Check whether the page changed (selectors, texts, flows) or the script needs an update.',
    ],
  },
  PACKET_LOSS: {
    classification: 'PACKET_LOSS',
    what: () => 'Pings are lost',
    steps: ['Trace the route from the affected location (mtr) and check the network provider status.'],
  },
  HEARTBEAT: {
    classification: 'HEARTBEAT',
    what: () => 'The job stopped pinging on time, or reported a failure',
    steps: ["Look at the job's scheduler and its logs around the start time."],
  },
  UNKNOWN: {
    classification: 'UNKNOWN',
    what: () => 'Runs fail',
    steps: ['Compare a failing run with the last passing one.'],
  },
}

/** Next steps suggested by what the user told us. */
const CONTEXT_RULES: [RegExp, (since: string) => string][] = [
  [
    /deploy|release|roll ?out|ship/i,
    (since) => `Compare the deployment you mention with the start of the failures (${since}).`,
  ],
  [
    /dns|domain|registrar|nameserver/i,
    () => 'Check the DNS change you mention: records, delegation and propagation.',
  ],
  [
    /certificate|cert\b|ssl|tls/i,
    () => 'Verify the certificate work you mention: chain, hostname and expiry.',
  ],
  [
    /maintenance|migration|upgrade/i,
    (since) => `Check whether the maintenance or migration you mention overlaps ${since}.`,
  ],
  [
    /firewall|waf|allow ?list|ip/i,
    () =>
      "Check that the firewall or allow-list change you mention admits the affected locations' addresses.",
  ],
]

export function analyze(evidence: Evidence): Analysis {
  const text = PHASE_TEXT[evidence.phase]
  const where = whereFailing(evidence)
  const target = evidence.check.target ? ` for ${evidence.check.target}` : ''
  return {
    classification: text.classification,
    failingPhase: evidence.phase,
    phaseDetail: evidence.phaseDetail,
    since: evidence.since,
    affectedLocations: evidence.affectedLocations,
    healthyLocations: evidence.healthyLocations,
    changes: evidence.changes,
    similarGroups: evidence.similarGroups,
    rootCause: rootCauseOf(evidence, where),
    userImpact:
      evidence.affectedLocations.length === 0
        ? 'No location fails with this error now.'
        : `Runs${target} fail${where}${evidence.healthyLocations.length > 0 ? '; users reaching it through other locations are not affected' : ''}.`,
    summary: summaryOf(evidence, where, target),
    nextSteps: nextStepsOf(evidence),
    evidence: evidenceListOf(evidence),
    userContext: evidence.userContext,
    referenceLinks: [],
  }
}

/** " in a, b (2 of 3 locations)", or nothing when no location fails now. */
function whereFailing(evidence: Evidence): string {
  const affected = evidence.affectedLocations.map((l) => l.location)
  const total = evidence.check.locations.length
  return affected.length === 0
    ? ''
    : ` in ${affected.join(', ')}${total > affected.length ? ` (${affected.length} of ${total} locations)` : ''}`
}

/** The summary's sentences: what fails and since when, then what the evidence adds. */
function summaryOf(evidence: Evidence, where: string, target: string): string {
  const text = PHASE_TEXT[evidence.phase]
  const affected = evidence.affectedLocations
  const failures = affected.reduce((sum, l) => sum + l.failures, 0)
  const lastSeen =
    affected
      .map((l) => l.lastSeen)
      .sort()
      .at(-1) ?? evidence.errorGroup.lastSeen
  const ongoing = !evidence.errorGroup.archived
  const sentences = [
    `${text.what(evidence.phaseDetail)}${target}${where} since ${evidence.since} (${failures} failed run${failures === 1 ? '' : 's'}, last at ${lastSeen}${ongoing ? ', still failing' : ', resolved since'}).`,
  ]
  if (evidence.healthyLocations.length > 0) {
    sentences.push(
      `${evidence.healthyLocations.join(', ')} kept passing meanwhile, so the cause is specific to the affected location${affected.length === 1 ? '' : 's'} (its network path, resolver or regional endpoint).`,
    )
  }
  const similar = evidence.similarGroups
  if (similar.length > 0) {
    sentences.push(
      `${similar.length} other check${similar.length === 1 ? '' : 's'} of the account (${similar.map((g) => g.checkName).join(', ')}) fail${similar.length === 1 ? 's' : ''} the same way since about the same time, which points at a shared dependency rather than this check.`,
    )
  }
  for (const change of evidence.changes) sentences.push(change.description)
  if (evidence.userContext) sentences.push(`You noted: "${evidence.userContext}".`)
  return sentences.join(' ')
}

function rootCauseOf(evidence: Evidence, where: string): string {
  return [
    `${PHASE_TEXT[evidence.phase].what(evidence.phaseDetail)}${where}.`,
    evidence.similarGroups.length > 0
      ? 'Other checks fail alike: a shared dependency is the likely cause.'
      : '',
    evidence.changes.find(
      (c) => c.kind === 'CHECK_CONFIG' || c.kind === 'REQUEST' || c.kind === 'CERTIFICATE',
    )?.description ?? '',
  ]
    .filter(Boolean)
    .join(' ')
}

/** The phase's usual steps, led by what the changes and similar failures point at, then the user's context. */
function nextStepsOf(evidence: Evidence): string[] {
  const nextSteps = [...PHASE_TEXT[evidence.phase].steps]
  if (evidence.changes.some((c) => c.kind === 'CHECK_CONFIG' || c.kind === 'REQUEST')) {
    nextSteps.unshift(
      'Review the check configuration change made just before the failures started; revert it to confirm.',
    )
  }
  if (evidence.changes.some((c) => c.kind === 'CERTIFICATE')) {
    nextSteps.unshift('Verify the newly served certificate (chain, hostname, expiry).')
  }
  if (evidence.similarGroups.length > 0) {
    nextSteps.unshift(
      'Look for what the failing checks share (DNS provider, network, upstream service) and check its status.',
    )
  }
  for (const [pattern, step] of CONTEXT_RULES) {
    if (pattern.test(evidence.userContext)) nextSteps.push(step(evidence.since))
  }
  return nextSteps
}

function evidenceListOf(evidence: Evidence): Analysis['evidence'] {
  const group = evidence.errorGroup
  return [
    {
      description: `Error group "${group.cleanedErrorMessage}": ${group.count} failures from ${group.firstSeen} to ${group.lastSeen}.`,
      artifacts: [{ name: group.id, type: 'error-group' }],
    },
    ...evidence.affectedLocations.map((l) => ({
      description: `${l.location}: ${l.failures} consecutive failures from ${l.since} to ${l.lastSeen}${l.lastGoodBefore ? `; the last good run before was at ${l.lastGoodBefore}` : ''}.`,
      artifacts: [{ name: l.location, type: 'location' }],
    })),
    ...evidence.changes.map((c) => ({
      description: c.description,
      artifacts: [{ name: c.kind, type: 'change' }],
    })),
    ...evidence.similarGroups.map((g) => ({
      description: `Check "${g.checkName}" fails with "${g.cleanedErrorMessage}" since ${g.firstSeen}.`,
      artifacts: [{ name: g.errorGroupId, type: 'error-group' }],
    })),
  ]
}
