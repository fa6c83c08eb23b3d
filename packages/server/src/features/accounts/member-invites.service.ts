import { isoNow, type ServiceContext } from '../../context.ts'
import { conflict } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import { createPasswordLink } from '../sessions/sessions.service.ts'
import * as repo from './accounts.repo.ts'
import type { InviteBody, MemberOrInvite } from './accounts.schemas.ts'
import { createUser, memberOf } from './accounts.service.ts'

/**
 * Inviting a person into an account: the server makes the user (when the email is new) and the
 * membership at once, with a one-time set-password link. The membership reads as an invitation until the
 * person sets their password with the link. Someone who has a password already just joins.
 */
export interface InviteOutcome {
  member: MemberOrInvite
  url: string | null
  expiresAt: string | null
  emailed: boolean
}

export async function inviteMember(
  ctx: ServiceContext,
  actor: { accountId: string; inviterEmail: string },
  body: InviteBody,
): Promise<InviteOutcome> {
  const email = body.email.toLowerCase()
  const { userId, url, expiresAt } = await inTransaction(ctx, async (tx) => {
    const existing = await repo.findUserByEmail(tx, email)
    const user = existing ?? (await createUser(tx, { email, name: body.name ?? '' }))
    const membership = existing ? await repo.findMembership(tx, user.id, actor.accountId) : undefined
    if (membership && !membership.invite_expires_at)
      throw conflict(`${email} is a member of this account already`)
    // A person with a password signs in as they are: they join now, no link.
    const link = existing?.password_hash ? undefined : await createPasswordLink(tx, user.id)
    await repo.upsertInvitation(
      tx,
      {
        user_id: user.id,
        account_id: actor.accountId,
        role: body.role,
        created_at: isoNow(ctx),
        invited_by: actor.inviterEmail,
        invite_expires_at: link?.expiresAt ?? null,
      },
      membership !== undefined,
    )
    return { userId: user.id, url: link?.url ?? null, expiresAt: link?.expiresAt ?? null }
  })
  const row = await repo.findMember(ctx, actor.accountId, userId)
  if (!row) throw new Error('the invited membership vanished')
  const emailed = url ? await mailInvitation(ctx, { to: email, url, inviter: actor.inviterEmail }) : false
  return { member: memberOf(actor.accountId, row, isoNow(ctx)), url, expiresAt, emailed }
}

/**
 * Mails the link through the SMTP server subscriber mail and email alerts use (SVC_SMTP_URL), once and
 * at once: the admin sees the link to copy either way, so a failed send is reported, not retried.
 */
async function mailInvitation(
  ctx: ServiceContext,
  invitation: { to: string; url: string; inviter: string },
): Promise<boolean> {
  const smtp = ctx.alerting?.smtp
  if (!smtp) return false
  const timeout = ctx.alerting?.timeoutMs ?? 10_000
  // Loaded here: most servers mail no invitation, and nodemailer is ~4 MB of memory.
  const nodemailer = (await import('nodemailer')).default
  const transport = nodemailer.createTransport({
    url: smtp.url,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  })
  try {
    await transport.sendMail({
      from: smtp.from,
      to: invitation.to,
      subject: 'You are invited to svc',
      text: [
        `${invitation.inviter} invited you to their svc account.`,
        '',
        `Set your password here (the link works once): ${invitation.url}`,
        '',
        'Then sign in with this email address and that password.',
      ].join('\n'),
    })
    return true
  } catch {
    return false
  } finally {
    transport.close()
  }
}
