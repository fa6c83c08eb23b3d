import { MaintenanceWindowBody } from '@svc/core'
import { type CheckDefaults, Construct, defined, type Issue, type Resource } from './construct.ts'

/** A time when checks carrying any of its tags don't alert (e.g. a weekly release). */
export class MaintenanceWindow extends Construct {
  readonly props: MaintenanceWindowBody

  constructor(logicalId: string, props: MaintenanceWindowBody) {
    super('maintenance-window', logicalId)
    this.props = props ?? ({} as MaintenanceWindowBody)
  }

  private body(): Record<string, unknown> {
    return defined({ ...this.props })
  }

  validate(_defaults: CheckDefaults): Issue[] {
    return [...this.logicalIdIssues(), ...this.schemaIssues(MaintenanceWindowBody, this.body())]
  }

  synthesize(): Resource[] {
    return [{ logicalId: this.logicalId, type: this.type, member: true, payload: this.body() }]
  }
}
