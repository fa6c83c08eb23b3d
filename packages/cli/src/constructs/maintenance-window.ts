import { MaintenanceWindowBody } from '@svc/core'
import { PlainConstruct } from './construct.ts'

/** A time when checks carrying any of its tags don't alert (e.g. a weekly release). */
export class MaintenanceWindow extends PlainConstruct<MaintenanceWindowBody> {
  constructor(logicalId: string, props: MaintenanceWindowBody) {
    super('maintenance-window', logicalId, props, MaintenanceWindowBody)
  }
}
