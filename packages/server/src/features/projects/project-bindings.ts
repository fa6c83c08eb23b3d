import { Nullable } from '@svc/core'
import { type Static, Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { ownersOf } from './projects.repo.ts'

const ProjectOwner = Type.Object({
  project: Type.Object({ id: Type.String(), logicalId: Type.String(), name: Type.String() }),
  binding: Type.Object({
    logicalId: Type.String(),
    pending: Type.Boolean(),
    sourceFile: Nullable(Type.String()),
  }),
})

/** Which monitoring-as-code project manages a resource (the spec's status page shape). */
export const ProjectBindings = Type.Object(
  {
    owner: Nullable(ProjectOwner),
    references: Type.Array(ProjectOwner, {
      description: 'Projects that refer to the resource without managing it (not tracked yet: empty).',
    }),
  },
  {
    title: 'ProjectBindings',
    description: '`owner`: the project that deploys the resource, null when no project manages it.',
  },
)
export type ProjectBindings = Static<typeof ProjectBindings>

export const UNBOUND: ProjectBindings = { owner: null, references: [] }

/**
 * `items` with their `projectBindings`, read with one query: `type` is the deploy protocol's resource
 * type, `idOf` the physical id a project binding stores for an item.
 */
export async function withProjectBindings<T extends object>(
  ctx: ServiceContext,
  type: string,
  items: T[],
  idOf: (item: T) => string | number,
): Promise<(T & { projectBindings: ProjectBindings })[]> {
  const owners = await ownersOf(
    ctx,
    type,
    items.map((item) => String(idOf(item))),
  )
  const byId = new Map(owners.map((owner) => [owner.physical_id, owner]))
  return items.map((item) => {
    const owner = byId.get(String(idOf(item)))
    const projectBindings: ProjectBindings = owner
      ? {
          owner: {
            project: { id: owner.project_id, logicalId: owner.project_logical_id, name: owner.project_name },
            binding: { logicalId: owner.logical_id, pending: false, sourceFile: owner.source_file },
          },
          references: [],
        }
      : { owner: null, references: [] }
    return { ...item, projectBindings }
  })
}
