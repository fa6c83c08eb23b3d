import type { Kysely } from 'kysely'
import type { Engine } from '../engine.ts'
import * as foundation from './0001-foundation.ts'
import * as checks from './0002-checks.ts'
import * as schedulesAndResults from './0003-schedules-and-results.ts'
import * as retriesRunnersReferences from './0004-retries-runners-references.ts'
import * as alerting from './0005-alerting.ts'
import * as privateLocations from './0006-private-locations.ts'
import * as statusPages from './0007-status-pages.ts'
import * as analytics from './0008-analytics.ts'
import * as leasesInDueOrder from './0009-leases-in-due-order.ts'
import * as agentLeft from './0010-agent-left.ts'
import * as suiteCancellation from './0011-suite-cancellation.ts'
import * as agentScriptRuns from './0012-agent-script-runs.ts'
import * as agentsPerLocation from './0013-agents-per-location.ts'
import * as confirmTokens from './0014-confirm-tokens.ts'
import * as statusHistory from './0015-status-history.ts'
import * as artifactBytes from './0016-artifact-bytes.ts'
import * as serviceDaysByCheck from './0017-service-days-by-check.ts'
import * as maintenanceHistory from './0018-maintenance-history.ts'
import * as checkTagHistory from './0019-check-tag-history.ts'
import * as encryptionKeyVerifier from './0021-encryption-key-verifier.ts'
import * as dashboardSessions from './0022-dashboard-sessions.ts'
import * as nodeLives from './0023-node-lives.ts'
import * as projects from './0025-projects.ts'
import * as sessions from './0026-sessions.ts'
import * as snippets from './0028-snippets.ts'
import * as clientCertificates from './0032-client-certificates.ts'
import * as memberInvites from './0033-member-invites.ts'
import * as maintenanceTimezones from './0034-maintenance-timezones.ts'
import * as compactResults from './0035-compact-results.ts'
import * as storedFiles from './0036-stored-files.ts'
import * as maintenanceOccurrences from './0037-maintenance-occurrences.ts'
import * as dashboards from './0038-dashboards.ts'
import * as minutesFromResults from './0039-minutes-from-results.ts'
import * as sessionRunSourceFiles from './0042-session-run-source-files.ts'
import * as sessionVariables from './0046-session-variables.ts'

export interface Migration {
  up(db: Kysely<unknown>, engine: Engine): Promise<void>
}

/** Every migration, in order. Names are permanent: the store records which ones ran. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-checks': checks,
  '0003-schedules-and-results': schedulesAndResults,
  '0004-retries-runners-references': retriesRunnersReferences,
  '0005-alerting': alerting,
  '0006-private-locations': privateLocations,
  '0007-status-pages': statusPages,
  '0008-analytics': analytics,
  '0009-leases-in-due-order': leasesInDueOrder,
  '0010-agent-left': agentLeft,
  '0011-suite-cancellation': suiteCancellation,
  '0012-agent-script-runs': agentScriptRuns,
  '0013-agents-per-location': agentsPerLocation,
  '0014-confirm-tokens': confirmTokens,
  '0015-status-history': statusHistory,
  '0016-artifact-bytes': artifactBytes,
  '0017-service-days-by-check': serviceDaysByCheck,
  '0018-maintenance-history': maintenanceHistory,
  '0019-check-tag-history': checkTagHistory,
  '0021-encryption-key-verifier': encryptionKeyVerifier,
  '0022-dashboard-sessions': dashboardSessions,
  '0023-node-lives': nodeLives,
  '0025-projects': projects,
  '0026-sessions': sessions,
  '0028-snippets': snippets,
  '0032-client-certificates': clientCertificates,
  '0033-member-invites': memberInvites,
  '0034-maintenance-timezones': maintenanceTimezones,
  '0035-compact-results': compactResults,
  '0036-stored-files': storedFiles,
  '0037-maintenance-occurrences': maintenanceOccurrences,
  '0038-dashboards': dashboards,
  '0039-minutes-from-results': minutesFromResults,
  '0042-session-run-source-files': sessionRunSourceFiles,
  '0046-session-variables': sessionVariables,
}
