import { type CheckType, SCRIPT_CHECK_TYPES } from '@svc/core'
import { UPTIME_CHECK_TYPES } from '@svc/runner'

/** Check types that run on a schedule (heartbeats are judged from their pings instead). */
export const RUNNABLE_CHECK_TYPES: readonly CheckType[] = [...UPTIME_CHECK_TYPES, ...SCRIPT_CHECK_TYPES]
