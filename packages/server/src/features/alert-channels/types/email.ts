import { EmailConfig, type TemplateVariables, textOf } from '@svc/core'
import type { Transporter } from 'nodemailer'
import type { ServiceContext } from '../../../context.ts'
import { type AttemptOutcome, defineChannelType, plainConfig } from './channel-type.ts'
import { summaryLines } from './messages.ts'
import { failure, RESPONSE_BODY_LIMIT } from './send-http.ts'

interface Email {
  address: string
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

export function emailMessage(variables: TemplateVariables) {
  const title = textOf(variables.ALERT_TITLE)
  const link = textOf(variables.RESULT_LINK)
  const lines = summaryLines(variables)
  const text = [title, '', ...lines, ...(link ? ['', `Result: ${link}`] : [])].join('\n')
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<h2>${escapeHtml(title)}</h2>`,
    `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    link ? `<p><a href="${escapeHtml(link)}">View the result</a></p>` : '',
    '</body></html>',
  ].join('')
  return { subject: title, text, html }
}

const mailers = new Map<string, Transporter>()

/** nodemailer is loaded on the first mail: most servers send none, and it is ~4 MB of memory. */
async function mailerOf(ctx: ServiceContext, url: string): Promise<Transporter> {
  let mailer = mailers.get(url)
  if (!mailer) {
    const timeout = ctx.alerting?.timeoutMs ?? 10_000
    const nodemailer = (await import('nodemailer')).default
    mailer = nodemailer.createTransport({
      url,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    })
    mailers.set(url, mailer)
  }
  return mailer
}

async function sendEmail(
  ctx: ServiceContext,
  config: Email,
  event: TemplateVariables,
): Promise<AttemptOutcome> {
  const smtp = ctx.alerting?.smtp
  if (!smtp) return { ...failure('email is not configured: set SVC_SMTP_URL'), permanent: true }
  try {
    const info = await (await mailerOf(ctx, smtp.url)).sendMail({
      from: smtp.from,
      to: config.address,
      ...emailMessage(event),
    })
    return {
      ok: true,
      statusCode: null,
      body: String(info.response ?? '').slice(0, RESPONSE_BODY_LIMIT),
      error: null,
    }
  } catch (error) {
    // A 5xx SMTP reply (unknown mailbox, refused sender, failed authentication) is final; 4xx is "try later".
    const code = (error as { responseCode?: unknown }).responseCode
    return {
      ...failure(error instanceof Error ? error.message : String(error)),
      ...(typeof code === 'number' && code >= 500 ? { permanent: true } : {}),
    }
  }
}

/** `EMAIL`: over the SMTP server of SVC_SMTP_URL. */
export const email = defineChannelType<Email, Email>({
  ...plainConfig<Email>(),
  schema: EmailConfig,
  send: (ctx, config, { event }) => sendEmail(ctx, config, event),
})
