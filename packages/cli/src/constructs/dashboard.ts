import { DashboardCreateBody, StrictObject } from '@svc/core'
import { type Static, Type } from 'typebox'
import { PlainConstruct } from './construct.ts'

/** The dashboard's header is optional here, as in the hosted product's construct (default: empty). */
export type DashboardProps = Omit<Static<typeof DashboardCreateBody>, 'header'> & { header?: string }

const DashboardProps = StrictObject({
  ...DashboardCreateBody.properties,
  header: Type.Optional(DashboardCreateBody.properties.header),
})

/**
 * A public page of check status, at `/dashboards/{customUrl}` (or a custom domain), showing the checks
 * with its `tags`. Each deploy replaces it whole: a setting the construct leaves out takes its default.
 */
export class Dashboard extends PlainConstruct<DashboardProps> {
  constructor(logicalId: string, props: DashboardProps) {
    super('dashboard', logicalId, props, DashboardProps)
  }
}
