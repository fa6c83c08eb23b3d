import { randomUUID } from 'node:crypto'
import { isoNow, type ServiceContext } from '../../context.ts'
import { raiseWakeup, wakeLoop } from '../../wakeups.ts'
import * as repo from './status-page-subscribers.repo.ts'

/**
 * Subscriber mail, in one place. `enqueueSubscriberEmail` is the seam: everything status pages send goes
 * through it into `status_page_emails`, and the loop below delivers it with nodemailer. To send through a
 * shared outbox instead, change this function and stop starting the loop.
 */
export interface SubscriberEmail {
  statusPageId: string
  subscriberId: string | null
  /** At most one email per key, ever (e.g. `update:{updateId}:{subscriberId}`). */
  dedupeKey: string
  to: string
  subject: string
  text: string
  html?: string
  headers?: Record<string, string>
}

/** Queues an email (in the caller's transaction when `ctx` is one); false when its key was queued before. */
export async function enqueueSubscriberEmail(ctx: ServiceContext, email: SubscriberEmail): Promise<boolean> {
  const queued = await repo.insertEmailOnce(ctx, {
    id: randomUUID(),
    dedupe_key: email.dedupeKey,
    status_page_id: email.statusPageId,
    subscriber_id: email.subscriberId,
    to_address: email.to,
    subject: email.subject,
    text_body: email.text,
    html_body: email.html ?? null,
    headers: JSON.stringify(email.headers ?? {}),
    status: 'PENDING',
    attempts: 0,
    next_attempt_ms: ctx.clock.now().getTime(),
    lease_owner: null,
    lease_until_ms: null,
    last_error: null,
    created_at: isoNow(ctx),
    sent_at: null,
  })
  if (queued) await raiseWakeup(ctx, 'subscriber-mail')
  return queued
}

export interface MailTransport {
  sendMail(message: {
    from: string
    to: string
    subject: string
    text: string
    html?: string
    headers: Record<string, string>
  }): Promise<unknown>
}

export const MAX_ATTEMPTS = 8
const LEASE_MS = 60_000
const FIRST_BACKOFF_MS = 30_000
const MAX_BACKOFF_MS = 60 * 60_000

/**
 * Sends the due emails once; a failure is retried later with backoff, and given up after MAX_ATTEMPTS.
 * Exported because the tests deliver one pass without the timer.
 */
export async function deliverDueSubscriberEmails(
  ctx: ServiceContext,
  transport: MailTransport,
  options: { owner: string; from: string; limit?: number },
): Promise<{ sent: number; failed: number }> {
  const nowMs = ctx.clock.now().getTime()
  const due = await repo.leaseDueEmails(ctx, {
    owner: options.owner,
    nowMs,
    leaseMs: LEASE_MS,
    limit: options.limit ?? 20,
  })
  let sent = 0
  let failed = 0
  for (const email of due) {
    const attempts = Number(email.attempts) + 1
    try {
      await transport.sendMail({
        from: options.from,
        to: email.to_address,
        subject: email.subject,
        text: email.text_body,
        ...(email.html_body ? { html: email.html_body } : {}),
        headers: JSON.parse(email.headers) as Record<string, string>,
      })
      await repo.settleEmail(ctx, email.id, options.owner, {
        status: 'SENT',
        attempts,
        sent_at: isoNow(ctx),
        last_error: null,
      })
      sent++
    } catch (error) {
      failed++
      const backoff = Math.min(FIRST_BACKOFF_MS * 2 ** (attempts - 1), MAX_BACKOFF_MS)
      await repo.settleEmail(ctx, email.id, options.owner, {
        status: attempts >= MAX_ATTEMPTS ? 'FAILED' : 'PENDING',
        attempts,
        next_attempt_ms: ctx.clock.now().getTime() + backoff,
        last_error: error instanceof Error ? error.message.slice(0, 1000) : String(error),
      })
    }
  }
  return { sent, failed }
}

export interface MailDeliveryOptions {
  /** `smtp://user:pass@host:port` or `smtps://...` (SVC_SMTP_URL). */
  smtpUrl: string
  from: string
  log: { error(object: object, message: string): void }
  /** The longest it sleeps with no mail due (default: the store's wake-up fallback). */
  fallbackMs?: number
}

/** Sends due subscriber mail over SMTP until stopped: on each queued email, and when a retry falls due. */
export function startSubscriberMailDelivery(ctx: ServiceContext, options: MailDeliveryOptions) {
  const transport = smtpTransportOnFirstMail(options.smtpUrl)
  const owner = `mail-${randomUUID()}`
  let stopped = false
  const loop = wakeLoop(ctx, {
    names: ['subscriber-mail'],
    what: 'delivering subscriber mail',
    log: options.log,
    ...(options.fallbackMs === undefined ? {} : { fallbackMs: options.fallbackMs }),
    async pass() {
      // Keep going while there is a backlog; then sleep until the next retry is due.
      while (
        !stopped &&
        (await deliverDueSubscriberEmails(ctx, transport, { owner, from: options.from })).sent > 0
      ) {}
      return repo.nextEmailDueMs(ctx)
    },
  })
  loop.start()
  return {
    async stop() {
      stopped = true
      await loop.stop()
      transport.close()
    },
  }
}

/** nodemailer is loaded with the first mail: ~4 MB of memory that a server sending none never needs. */
function smtpTransportOnFirstMail(smtpUrl: string): MailTransport & { close(): void } {
  let transport: ReturnType<typeof import('nodemailer').createTransport> | undefined
  return {
    async sendMail(message) {
      transport ??= (await import('nodemailer')).createTransport(smtpUrl)
      return transport.sendMail(message)
    },
    close: () => transport?.close(),
  }
}
