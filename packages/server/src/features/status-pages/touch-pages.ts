import type { ServiceContext } from '../../context.ts'
import { forgetPublicPage } from '../status-site/page-cache.ts'
import * as repo from './status-pages.repo.ts'

/** Marks what the pages show as changed: their public renderings rebuild on every node. */
export async function touchPages(ctx: ServiceContext, pageIds: string[]): Promise<void> {
  await repo.bumpContentVersion(ctx, pageIds)
  for (const id of pageIds) forgetPublicPage(ctx, id)
}
