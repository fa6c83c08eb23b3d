import { CreateVariableBody } from '@svc/core'
import { PlainConstruct } from './construct.ts'

/** `value` may come from the deploy's environment: unset there, validation names the field. */
export type EnvironmentVariableProps = Omit<CreateVariableBody, 'value'> & { value: string | undefined }

/**
 * An account variable (`/v1/variables`) that checks read as `{{KEY}}` or `process.env.KEY`. Keep secret
 * values out of git: read them from the environment of the deploy (`value: process.env.API_TOKEN`).
 * A new `key`, or a secret made non-secret, deletes the variable and makes it anew.
 */
export class EnvironmentVariable extends PlainConstruct<EnvironmentVariableProps> {
  constructor(logicalId: string, props: EnvironmentVariableProps) {
    super('environment-variable', logicalId, props, CreateVariableBody)
  }
}
