import { Type } from 'typebox'
import { NullableScriptDetail } from '../agent-details.ts'
import { commonCheckFields, scriptCheckFields } from '../checks/check-fields.ts'
import { Nullable, StrictObject } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import { Script } from './shared.ts'

export const browserCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.BROWSER.path,
  body: StrictObject({
    ...commonCheckFields,
    ...scriptCheckFields,
    script: Script,
    sslCheckDomain: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 259,
          pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$',
          description: 'A host name (or host:port) whose TLS certificate is checked on each run.',
        }),
      ),
    ),
  }),
  assertionSources: null,
  detail: { key: 'browserCheckResult', schema: NullableScriptDetail },
  analytics: {
    segment: CHECK_TYPE_CATALOG.BROWSER.analyticsSegment,
    metrics: {
      responseTime: 'milliseconds',
      TTFB: 'milliseconds',
      FCP: 'milliseconds',
      LCP: 'milliseconds',
      CLS: 'score',
      TBT: 'milliseconds',
      consoleErrors: 'count',
      networkErrors: 'count',
      userScriptErrors: 'count',
      documentErrors: 'count',
    },
    groupBy: ['runLocation', 'pageIndex'],
    main: CHECK_TYPE_CATALOG.BROWSER.mainMetric,
  },
  runs: 'script',
  jobFields: [],
})
