import { randomBytes, randomUUID } from 'node:crypto'
import { isForeignKeyViolation, isUniqueViolation } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import { findOrThrow as findPageOrThrow } from '../status-pages/status-pages.service.ts'
import * as repo from './status-page-subscribers.repo.ts'
import { EMAIL, subscribe } from './status-page-subscribers.service.ts'

/** The hosted API's subscriptions of a status page: svc's email subscribers, in the hosted record's shape. */

export interface Subscription {
  id: string
  type: 'EMAIL'
  address: string
  status: 'PENDING' | 'VERIFIED'
  created_at: string
  updated_at: string
}

export async function listSubscriptions(ctx: ServiceContext, accountId: string, pageId: string) {
  await findPageOrThrow(ctx, accountId, pageId)
  const all: Subscription[] = []
  for (let offset = 0; ; offset += 500) {
    const { rows, total } = await repo.listSubscribers(ctx, pageId, { limit: 500, offset })
    all.push(
      ...rows.map((row) => ({
        id: row.id,
        type: 'EMAIL' as const,
        address: row.email,
        status: row.confirmed_at ? ('VERIFIED' as const) : ('PENDING' as const),
        created_at: row.created_at,
        updated_at: row.confirmed_at ?? row.created_at,
      })),
    )
    if (offset + rows.length >= Number(total) || rows.length === 0) return all
  }
}

export interface BulkSubscriptions {
  subscriptions: { type: 'EMAIL'; config: string }[]
  autoVerify?: boolean
}

/**
 * Adds each address not subscribed yet: verified at once with `autoVerify` (no email is sent), else
 * pending, with a confirmation email as the public page's subscribe sends. Addresses already subscribed
 * (or listed twice) are skipped.
 */
export async function bulkSubscribe(
  ctx: ServiceContext,
  accountId: string,
  pageId: string,
  body: BulkSubscriptions,
) {
  const page = await findPageOrThrow(ctx, accountId, pageId)
  const emails = body.subscriptions.map(({ config }, index) => {
    const email = config.trim().toLowerCase()
    if (email.length > 254 || !EMAIL.test(email))
      throw invalid(`body.subscriptions.${index}.config`, 'must be an email address')
    return email
  })
  let created = 0
  for (const email of new Set(emails)) {
    if (await repo.findSubscriberByEmail(ctx, page.id, email)) continue
    if (body.autoVerify) {
      if (await insertVerified(ctx, page.id, email)) created++
    } else {
      await subscribe(ctx, page, email)
      created++
    }
  }
  return {
    created,
    skipped: emails.length - created,
    status: body.autoVerify ? ('VERIFIED' as const) : ('PENDING' as const),
  }
}

async function insertVerified(ctx: ServiceContext, pageId: string, email: string): Promise<boolean> {
  const now = isoNow(ctx)
  try {
    await inTransaction(ctx, async (tx) => {
      await repo.insertSubscriber(tx, {
        id: randomUUID(),
        status_page_id: pageId,
        email,
        confirmation_sent_at: now,
        confirmed_at: now,
        unsubscribe_token: randomBytes(32).toString('base64url'),
        created_at: now,
      })
    })
    return true
  } catch (error) {
    // The address subscribed meanwhile: skipped.
    if (isUniqueViolation(error)) return false
    if (isForeignKeyViolation(error)) throw notFound(`Status page ${pageId} not found`)
    throw error
  }
}

export async function deleteSubscription(ctx: ServiceContext, accountId: string, pageId: string, id: string) {
  await findPageOrThrow(ctx, accountId, pageId)
  if (!(await repo.deleteSubscriber(ctx, pageId, id))) throw notFound(`Subscription ${id} not found`)
}
