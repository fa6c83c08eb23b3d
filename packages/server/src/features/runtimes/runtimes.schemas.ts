import { DateTime, RUNTIME_IDS, RUNTIME_STAGES, StringEnum } from '@svc/core'
import { Type } from 'typebox'

export const Runtime = Type.Object(
  {
    name: StringEnum(RUNTIME_IDS, { description: 'The id checks, groups and accounts name in `runtimeId`.' }),
    stage: StringEnum(RUNTIME_STAGES),
    runtimeEndOfLife: Type.Optional(
      DateTime({ description: 'When the runtime stops being supported; absent while it is.' }),
    ),
    default: Type.Boolean({ description: 'The runtime of checks whose check, group and account name none.' }),
    description: Type.String(),
    multiStepSupport: Type.Boolean(),
    nodeJsVersion: Type.String(),
    dependencies: Type.Record(Type.String(), Type.String(), {
      description:
        'npm package → version. Scripts may import these and Node.js built-ins (node:*), nothing else.',
    }),
  },
  { title: 'Runtime' },
)

export const RuntimeIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
