import type { RenderOptions, TemplateVariables } from '@svc/core'
import type { ServiceContext } from '../../context.ts'

/** What a test delivery sends, and what a template must render at save. */
export const SAMPLE_EVENT: TemplateVariables = {
  CHECK_NAME: 'Sample check',
  CHECK_ID: '00000000-0000-4000-8000-000000000000',
  CHECK_TYPE: 'API',
  ALERT_TITLE: 'Sample check has failed (test alert)',
  ALERT_TYPE: 'ALERT_FAILURE',
  CHECK_RESULT_ID: '00000000-0000-4000-8000-000000000001',
  CHECK_ERROR_MESSAGE: 'This is a test alert: nothing failed',
  RESPONSE_TIME: 123,
  API_CHECK_RESPONSE_STATUS_CODE: 503,
  API_CHECK_RESPONSE_STATUS_TEXT: 'Service Unavailable',
  RUN_LOCATION: 'local',
  RESULT_LINK: '',
  SSL_DAYS_REMAINING: null,
  SSL_CHECK_DOMAIN: null,
  STARTED_AT: '1970-01-01T00:00:00.000Z',
  TAGS: ['sample'],
  GROUP_NAME: '',
}

export function sampleRenderOptions(ctx: Pick<ServiceContext, 'clock'>): RenderOptions {
  return { now: ctx.clock.now(), region: 'local' }
}

/** The sample event as of now, for `POST /v1/alert-channels/{id}/test`. */
export function sampleEvent(ctx: Pick<ServiceContext, 'clock' | 'publicUrl'>): TemplateVariables {
  return {
    ...SAMPLE_EVENT,
    STARTED_AT: ctx.clock.now().toISOString(),
    RESULT_LINK: `${ctx.publicUrl}/v1/check-results/${SAMPLE_EVENT.CHECK_ID}/${SAMPLE_EVENT.CHECK_RESULT_ID}`,
  }
}
