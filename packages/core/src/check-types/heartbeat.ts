import { Type } from 'typebox'
import { commonCheckFields } from '../checks/check-fields.ts'
import { StrictObject, StringEnum } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'

export const HEARTBEAT_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const

export const Heartbeat = StrictObject({
  period: Type.Integer({ minimum: 1 }),
  periodUnit: StringEnum(HEARTBEAT_UNITS),
  grace: Type.Integer({ minimum: 0 }),
  graceUnit: StringEnum(HEARTBEAT_UNITS),
})

/** Judged from its pings: no runner, no assertions, no detail. */
export const heartbeatCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.HEARTBEAT.path,
  body: StrictObject({ ...commonCheckFields, heartbeat: Heartbeat }),
  assertionSources: null,
  detail: null,
  analytics: {
    segment: CHECK_TYPE_CATALOG.HEARTBEAT.analyticsSegment,
    metrics: {},
    groupBy: [],
    main: CHECK_TYPE_CATALOG.HEARTBEAT.mainMetric,
    statusFilters: ['FAILING', 'EARLY', 'RECEIVED', 'GRACE', 'LATE'],
  },
  runs: null,
  jobFields: [],
})
