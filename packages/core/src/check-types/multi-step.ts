import { NullableScriptDetail } from '../agent-details.ts'
import { commonCheckFields, scriptCheckFields } from '../checks/check-fields.ts'
import { StrictObject } from '../schema-helpers.ts'
import { defineCheckType } from './definition.ts'
import { Script } from './shared.ts'

export const multiStepCheckType = defineCheckType({
  path: 'multistep',
  body: StrictObject({ ...commonCheckFields, ...scriptCheckFields, script: Script }),
  assertionSources: null,
  detail: { key: 'multiStepCheckResult', schema: NullableScriptDetail },
  analytics: {
    segment: 'multistep-checks',
    metrics: { responseTime: 'milliseconds' },
    groupBy: ['runLocation'],
    main: 'responseTime',
  },
  runs: 'script',
  jobFields: [],
})
