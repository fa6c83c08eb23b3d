import { NullableScriptDetail } from '../agent-details.ts'
import { commonCheckFields, scriptCheckFields } from '../checks/check-fields.ts'
import { StrictObject } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import { Script } from './shared.ts'

export const multiStepCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.MULTI_STEP.path,
  body: StrictObject({ ...commonCheckFields, ...scriptCheckFields, script: Script }),
  assertionSources: null,
  detail: { key: 'multiStepCheckResult', schema: NullableScriptDetail },
  analytics: {
    segment: CHECK_TYPE_CATALOG.MULTI_STEP.analyticsSegment,
    metrics: { responseTime: 'milliseconds' },
    groupBy: ['runLocation'],
    main: CHECK_TYPE_CATALOG.MULTI_STEP.mainMetric,
  },
  runs: 'script',
  jobFields: [],
})
