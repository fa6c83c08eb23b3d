import { SerialId, StringEnum, Uuid } from '@svc/core'
import { type Static, Type } from 'typebox'
import { BADGE_STYLES, BADGE_THEMES } from './badge-svg.ts'

const BadgeOptions = {
  style: Type.Optional(StringEnum(BADGE_STYLES, { default: 'flat' })),
  theme: Type.Optional(StringEnum(BADGE_THEMES, { default: 'default' })),
  responseTime: Type.Optional(
    Type.Boolean({ default: false, description: 'Adds the average response time of the last 24 hours.' }),
  ),
}

// Open routes take unknown query parameters (a README's cache-busting `?v=2`).
export const CheckBadgeQuery = Type.Object(BadgeOptions)
export type CheckBadgeQuery = Static<typeof CheckBadgeQuery>

export const GroupBadgeQuery = Type.Object({
  ...BadgeOptions,
  accountId: Type.Optional(
    Uuid({
      description:
        "The group's account: group ids are sequential, so the id alone would name any account's group.",
    }),
  ),
})
export type GroupBadgeQuery = Static<typeof GroupBadgeQuery>

export const CheckBadgeParams = Type.Object({ checkId: Uuid() })
export const GroupBadgeParams = Type.Object({ groupId: SerialId() })

export const BadgeResponse = {
  description: 'An SVG image: the name, current status and uptime of the last 24 hours',
  content: { 'image/svg+xml': { schema: Type.String() } },
}
