import { createHash, randomBytes, randomUUID } from 'node:crypto'
import {
  type IncidentsTable,
  type IncidentUpdatesTable,
  isUniqueViolation,
  type StatusPageSubscribersTable,
  type StatusPagesTable,
} from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { HttpError, invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { countHit } from '../../rate-limit/rate-limit.repo.ts'
import { inTransaction } from '../../transactions.ts'
import { findPageById, lockPage } from '../status-pages/page-lookups.service.ts'
import { findOrThrow as findPageOrThrow, publicUrlOf } from '../status-pages/status-pages.service.ts'
import * as repo from './status-page-subscribers.repo.ts'
import { enqueueSubscriberEmail } from './subscriber-mail.ts'

/** A pending subscriber asking again within this window gets no second confirmation email. */
const RESEND_AFTER_MS = 10 * 60_000
/**
 * Anyone may subscribe, so without a cap the server would mail whatever addresses a script sends it. The
 * cap is per page rather than per client: behind a reverse proxy every client has the proxy's address.
 * Exported because the tests subscribe past it.
 */
export const CONFIRMATIONS_PER_PAGE_PER_HOUR = 100
const HOUR_MS = 3_600_000
/** The confirmation links of an address kept valid: its newest, so asking again stores no more. */
export const CONFIRM_LINKS_KEPT = 5
export const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/

export const STATUS_LABELS: Record<string, string> = {
  INVESTIGATING: 'Investigating',
  IDENTIFIED: 'Identified',
  MONITORING: 'Monitoring',
  RESOLVED: 'Resolved',
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

/**
 * Double opt-in: a new or still unconfirmed address gets a confirmation link. The answer is the same
 * whether or not the address was subscribed already, so nobody learns who subscribes.
 */
export async function subscribe(
  ctx: ServiceContext,
  page: StatusPagesTable,
  rawEmail: string,
): Promise<void> {
  const email = rawEmail.trim().toLowerCase()
  if (email.length > 254 || !EMAIL.test(email)) throw invalid('body.email', 'must be an email address')
  const now = isoNow(ctx)
  const existing = await repo.findSubscriberByEmail(ctx, page.id, email)
  if (existing?.confirmed_at) return
  if (existing && ctx.clock.now().getTime() - Date.parse(existing.confirmation_sent_at) < RESEND_AFTER_MS)
    return
  await countConfirmation(ctx, page)
  const confirmToken = randomBytes(32).toString('base64url')
  try {
    await sendConfirmation(ctx, page, email, existing, confirmToken, now)
  } catch (error) {
    // The same address subscribing twice at once (a double click): the other request's email confirms it.
    if (isUniqueViolation(error)) return
    throw error
  }
}

async function countConfirmation(ctx: ServiceContext, page: StatusPagesTable): Promise<void> {
  const nowMs = ctx.clock.now().getTime()
  const window = await countHit(ctx, `subscribe-confirmations:${page.id}`, nowMs, HOUR_MS)
  if (Number(window.hits) <= CONFIRMATIONS_PER_PAGE_PER_HOUR) return
  const retryAfterSeconds = Math.max(1, Math.ceil((Number(window.window_start_ms) + HOUR_MS - nowMs) / 1000))
  throw new HttpError(
    429,
    `Too many subscriptions to this page right now: try again in ${Math.ceil(retryAfterSeconds / 60)} minutes`,
    { headers: { 'retry-after': String(retryAfterSeconds) } },
  )
}

async function sendConfirmation(
  ctx: ServiceContext,
  page: StatusPagesTable,
  email: string,
  existing: StatusPageSubscribersTable | undefined,
  confirmToken: string,
  now: string,
): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    // The page locked, then the subscriber: their deletion waits for this link, or went first.
    if (!(await lockPage(tx, page.id, 'referenced'))) throw notFound('Status page not found')
    let subscriber: StatusPageSubscribersTable
    if (existing && (await repo.lockSubscriber(tx, existing.id, 'referenced'))) {
      await repo.setSubscriber(tx, existing.id, { confirmation_sent_at: now })
      subscriber = existing
    } else {
      subscriber = {
        id: randomUUID(),
        status_page_id: page.id,
        email,
        confirmation_sent_at: now,
        confirmed_at: null,
        unsubscribe_token: randomBytes(32).toString('base64url'),
        created_at: now,
      }
      await repo.insertSubscriber(tx, subscriber)
    }
    // A new link, and the ones sent before keep working: people open the first mail they find.
    await repo.insertConfirmToken(tx, {
      token_hash: hashToken(confirmToken),
      subscriber_id: subscriber.id,
      created_at: now,
    })
    await repo.pruneConfirmTokens(tx, subscriber.id, CONFIRM_LINKS_KEPT)
    const links = subscriberLinksOf(ctx, page)
    const pageUrl = links.page
    const confirmUrl = links.confirm(confirmToken)
    await enqueueSubscriberEmail(tx, {
      statusPageId: page.id,
      subscriberId: subscriber.id,
      dedupeKey: `confirm:${subscriber.id}:${now}`,
      to: email,
      subject: `Confirm your subscription to ${page.name}`,
      text: [
        `Someone, hopefully you, asked to get an email whenever ${page.name} posts an incident update.`,
        '',
        `Confirm your subscription: ${confirmUrl}`,
        '',
        'If you did not ask for this, ignore this email: nothing will be sent to you.',
        '',
        `${page.name}: ${pageUrl}`,
      ].join('\n'),
    })
  })
}

/** Confirms the subscription behind `token` (any confirmation link it was sent); false for an unknown token. */
export async function confirmSubscription(ctx: ServiceContext, page: StatusPagesTable, token: string) {
  const subscriber = await repo.findSubscriberByConfirmHash(ctx, hashToken(token))
  if (!subscriber || subscriber.status_page_id !== page.id) return false
  if (subscriber.confirmed_at) return true
  // False when it was removed meanwhile (the update waited for that on PostgreSQL).
  return repo.setSubscriber(ctx, subscriber.id, { confirmed_at: isoNow(ctx) })
}

/** One click: the token in every email removes its subscriber. False when it is already gone. */
export async function unsubscribe(ctx: ServiceContext, page: StatusPagesTable, token: string) {
  return repo.deleteSubscriberByToken(ctx, page.id, token)
}

/** Whether `token` still unsubscribes someone from `page` (a link opened, not yet acted on). */
export async function isUnsubscribeToken(ctx: ServiceContext, page: StatusPagesTable, token: string) {
  return repo.subscriberWithTokenExists(ctx, page.id, token)
}

/** The page a mail link's token belongs to, whatever its slug or domain is now. */
export async function pageOfLinkToken(
  ctx: ServiceContext,
  link: 'confirm' | 'unsubscribe',
  token: string,
): Promise<StatusPagesTable | undefined> {
  const subscriber =
    link === 'confirm'
      ? await repo.findSubscriberByConfirmHash(ctx, hashToken(token))
      : await repo.findSubscriberByUnsubscribeToken(ctx, token)
  return subscriber ? findPageById(ctx, subscriber.status_page_id) : undefined
}

/** Path of the slug-free mail links on svc's own host (no slug holds `_`). */
export const LINK_PREFIX = '/status/_subscription'

/**
 * Where subscriber mail points: token-only links, so they keep working when the page's slug changes. On
 * the page's custom domain when it has one (svc can't check a domain's DNS: setting `customDomain` says it
 * points here), with svc's own scheme and port; the links work there even after the domain is moved.
 */
export function subscriberLinksOf(
  ctx: ServiceContext,
  page: Pick<StatusPagesTable, 'url' | 'custom_domain'>,
) {
  const own = new URL(ctx.publicUrl)
  const origin = page.custom_domain
    ? `${own.protocol}//${page.custom_domain}${own.port ? `:${own.port}` : ''}`
    : ctx.publicUrl
  return {
    page: page.custom_domain ? origin : publicUrlOf(ctx, page),
    confirm: (token: string) => `${origin}${LINK_PREFIX}/confirm?token=${token}`,
    unsubscribe: (token: string) => `${origin}${LINK_PREFIX}/unsubscribe?token=${token}`,
  }
}

export async function listSubscribers(ctx: ServiceContext, accountId: string, pageId: string, page: Page) {
  await findPageOrThrow(ctx, accountId, pageId)
  const { rows, total } = await repo.listSubscribers(ctx, pageId, page)
  return {
    items: rows.map((row) => ({
      id: row.id,
      email: row.email,
      status: row.confirmed_at ? ('CONFIRMED' as const) : ('PENDING' as const),
      confirmedAt: row.confirmed_at,
      created_at: row.created_at,
    })),
    total,
  }
}

export async function deleteSubscriber(ctx: ServiceContext, accountId: string, pageId: string, id: string) {
  await findPageOrThrow(ctx, accountId, pageId)
  if (!(await repo.deleteSubscriber(ctx, pageId, id))) throw notFound(`Subscriber ${id} not found`)
}

/** Queues one email per confirmed subscriber for `update`; queuing the same update again sends nothing. */
export async function enqueueUpdateNotifications(
  ctx: ServiceContext,
  page: StatusPagesTable,
  incident: IncidentsTable,
  update: IncidentUpdatesTable,
): Promise<number> {
  const status = STATUS_LABELS[update.status] ?? update.status
  return enqueuePageNotice(ctx, page, {
    key: `update:${update.id}`,
    subject: `${incident.name}: ${status}`,
    lines: [
      incident.name,
      `${status} (${update.public_date.replace('T', ' ').slice(0, 16)} UTC)`,
      '',
      update.description,
    ],
  })
}

/** What a page tells its subscribers: `key` names it, so it is sent once per subscriber, ever. */
export interface PageNotice {
  key: string
  /** After the page's name in brackets. */
  subject: string
  /** The body before the page's link and the unsubscribe line. */
  lines: string[]
}

/** Queues `notice` to every confirmed subscriber of the page; answers how many emails are new. */
export async function enqueuePageNotice(
  ctx: ServiceContext,
  page: StatusPagesTable,
  notice: PageNotice,
): Promise<number> {
  const subscribers = await repo.confirmedSubscribers(ctx, page.id)
  const links = subscriberLinksOf(ctx, page)
  let queued = 0
  for (const subscriber of subscribers) {
    const unsubscribeUrl = links.unsubscribe(subscriber.unsubscribe_token)
    const fresh = await enqueueSubscriberEmail(ctx, {
      statusPageId: page.id,
      subscriberId: subscriber.id,
      dedupeKey: `${notice.key}:${subscriber.id}`,
      to: subscriber.email,
      subject: `[${page.name}] ${notice.subject}`,
      text: [
        ...notice.lines,
        '',
        `Status page: ${links.page}`,
        '',
        `You get this email because you subscribed to ${page.name}.`,
        `Unsubscribe with one click: ${unsubscribeUrl}`,
      ].join('\n'),
      headers: {
        'List-Unsubscribe': `<${unsubscribeUrl}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    })
    if (fresh) queued++
  }
  return queued
}
