import { Type } from 'typebox'
import { NullableScriptDetail } from '../agent-details.ts'
import { commonCheckFields, scriptCheckFields } from '../checks/check-fields.ts'
import { Nullable, StrictObject } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'

/** A Playwright test suite (the hosted product's PLAYWRIGHT checks). */
export const automationCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.AUTOMATION.path,
  body: StrictObject({
    ...commonCheckFields,
    ...scriptCheckFields,
    script: Type.Optional(
      Type.String({
        maxLength: 1_000_000,
        description: 'A test file written at scriptPath; optional when dependencies hold the suite.',
      }),
    ),
    playwrightConfigPath: Type.Optional(
      Type.String({
        maxLength: 1024,
        default: 'playwright.config.ts',
        description: "The suite's Playwright config: must be one of its files (dependencies, script).",
      }),
    ),
    grep: Type.Optional(
      Nullable(Type.String({ maxLength: 1024, description: 'Runs only tests matching this.' })),
    ),
  }),
  assertionSources: null,
  detail: { key: 'playwrightCheckResult', schema: NullableScriptDetail },
  analytics: {
    segment: CHECK_TYPE_CATALOG.AUTOMATION.analyticsSegment,
    metrics: { responseTime: 'milliseconds' },
    groupBy: ['runLocation'],
    main: CHECK_TYPE_CATALOG.AUTOMATION.mainMetric,
  },
  runs: 'script',
  jobFields: [],
})
