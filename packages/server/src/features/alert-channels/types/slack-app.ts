import { SlackAppConfig } from '@svc/core'
import { type AttemptOutcome, defineChannelType, plainConfig } from './channel-type.ts'
import { slackMessageText } from './messages.ts'
import { failure, httpAttempt, postJson } from './send-http.ts'

interface SlackApp {
  slackChannels: string[]
}

const WEB_API = 'https://slack.com/api'

/** Slack's Web API answers 200 with `{"ok": false, "error": "channel_not_found"}` when it refuses. */
function slackRefusal(body: string): string | null {
  try {
    const answer = JSON.parse(body) as { ok?: unknown; error?: unknown }
    if (answer.ok === true) return null
    return `Slack refused the message: ${typeof answer.error === 'string' ? answer.error : 'no reason given'}`
  } catch {
    return 'Slack answered something other than its JSON'
  }
}

/**
 * `SLACK_APP`: chat.postMessage with the bot token of the Slack app the operator installed
 * (SVC_SLACK_BOT_TOKEN; SVC_SLACK_API_URL overrides the API's base URL). One post per channel; an
 * attempt succeeds when every channel took it.
 */
export const slackApp = defineChannelType<SlackApp, SlackApp>({
  ...plainConfig<SlackApp>(),
  secrets: (ctx) => (ctx.alerting?.slackApp ? [ctx.alerting.slackApp.botToken] : []),
  schema: SlackAppConfig,
  async send(ctx, config, { event }) {
    const slack = ctx.alerting?.slackApp
    if (!slack)
      return { ...failure('the Slack app is not configured: set SVC_SLACK_BOT_TOKEN'), permanent: true }
    const base = (slack.apiUrl ?? WEB_API).replace(/\/+$/, '')
    const text = slackMessageText(event)
    let last: AttemptOutcome | null = null
    for (const channel of config.slackChannels) {
      const outcome = await httpAttempt(
        ctx,
        postJson(
          `${base}/chat.postMessage`,
          { channel, text, unfurl_links: false },
          { authorization: `Bearer ${slack.botToken}`, 'content-type': 'application/json; charset=utf-8' },
        ),
        { reason: (body) => slackRefusal(body), refusal: slackRefusal },
      )
      if (!outcome.ok) return { ...outcome, error: `${channel}: ${outcome.error}` }
      last = outcome
    }
    return last ?? failure('no Slack channel to post to')
  },
})
