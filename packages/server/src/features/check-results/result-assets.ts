import { extname } from 'node:path'
import { Nullable, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { getResult } from './check-results.service.ts'

/** The hosted API's manifest of a check result's assets: its screenshots, traces and videos, with links. */

const ASSET_TYPES = ['log', 'trace', 'video', 'screenshot', 'pcap', 'report', 'file'] as const

export const ResultAssetsQuery = StrictObject({
  type: Type.Optional(
    Type.Array(StringEnum(ASSET_TYPES), {
      description: 'Only these types (svc keeps screenshots, traces and videos).',
    }),
  ),
  name: Type.Optional(Type.String({ maxLength: 200, description: 'Only assets whose name contains this.' })),
})
export type ResultAssetsQuery = Static<typeof ResultAssetsQuery>

export const AssetManifest = Type.Object(
  {
    assets: Type.Array(
      Type.Object({
        type: Type.String(),
        name: Type.String(),
        url: Type.String(),
        contentType: Type.String(),
        size: Type.Optional(Nullable(Type.Number())),
        source: Type.Object({
          type: Type.String(),
          checkId: Type.String(),
          checkType: Type.String(),
          resultId: Type.String(),
        }),
      }),
    ),
    truncated: Type.Boolean(),
    entriesReturned: Type.Integer(),
    entriesTotal: Type.Integer(),
  },
  { title: 'AssetManifest' },
)

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.zip': 'application/zip',
  '.webm': 'video/webm',
}
const KINDS = [
  ['screenshots', 'screenshot'],
  ['traces', 'trace'],
  ['videos', 'video'],
] as const

type LinkedFile = { path: string; url: string; size?: number }

export async function resultAssets(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  resultId: string,
  query: ResultAssetsQuery,
) {
  const result = (await getResult(ctx, accountId, checkId, resultId)) as Record<string, unknown>
  const source = { type: 'check-result', checkId, checkType: String(result.checkType), resultId }
  const assets = []
  // A script result's detail (browserCheckResult, ...) lists its files with their links.
  for (const value of Object.values(result)) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue
    for (const [key, type] of KINDS) {
      for (const file of ((value as Record<string, unknown>)[key] as LinkedFile[] | undefined) ?? []) {
        if (query.type && !query.type.includes(type)) continue
        if (query.name && !file.path.includes(query.name)) continue
        const contentType = CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream'
        assets.push({ type, name: file.path, url: file.url, contentType, size: file.size ?? null, source })
      }
    }
  }
  return { assets, truncated: false, entriesReturned: assets.length, entriesTotal: assets.length }
}
