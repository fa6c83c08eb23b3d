import type { ReactNode } from 'react'
import type { DraftUpdate } from '../ui/edited-errors.ts'
import type { Draft } from '../ui/form-fields.tsx'

/** What the generic list/form pages need to know about one settings resource. */

export type FieldKind =
  | 'text'
  | 'number'
  | 'select'
  | 'checkbox'
  | 'list'
  | 'datetime'
  | 'textarea'
  | 'password'
  | 'timezone'
  | 'custom'

export interface FieldSpec {
  path: string
  label: string
  kind: FieldKind
  options?: (string | number | [string | number, string])[]
  /** A select whose values are numbers (the body takes 60, not "60"). */
  numeric?: boolean
  /** A number field's bounds. */
  min?: number
  max?: number
  /** Options fetched from the API (groups, services, ...). */
  optionsFrom?: { path: string; value: string; label: string }
  hint?: string
  /** The heading of the part of the form this field starts or continues; fields without one have none. */
  section?: string
  required?: boolean
  show?: (draft: Draft, creating: boolean) => boolean
  /** Draws a `custom` field: an editor of its own over the whole draft (cards, impacts, ...). */
  render?: (bind: { draft: Draft; onChange(update: DraftUpdate): void; error: unknown }) => ReactNode
}

export interface Column<T> {
  label: string
  render: (item: T) => ReactNode
  className?: string
}

export interface ItemAction<T> {
  label: string
  /** Runs the action; its answer (a message) is shown beside the item. */
  run: (item: T) => Promise<string>
  role?: 'write' | 'admin'
  /** The item's state once the action has nothing left to do ("Ended"): shown in the button's place. */
  doneAs?: (item: T) => string | undefined
}

export interface ResourceDescriptor<T = Record<string, unknown>> {
  key: string
  title: string
  singular: string
  description: string
  listPath: string
  itemPath: (id: string) => string
  createPath?: string
  /** The create button's words, when not "New <singular>" (e.g. "Invite a person"). */
  createLabel?: string
  /** PUT or PATCH to save an edit; none means items can't be edited. */
  updateMethod?: 'put' | 'patch'
  canDelete?: boolean
  idOf: (item: T) => string
  nameOf: (item: T) => string
  columns: Column<T>[]
  fields: FieldSpec[]
  defaults: Draft
  toDraft?: (item: T) => Draft
  toBody?: (draft: Draft, creating: boolean) => Record<string, unknown>
  /** Read again every 3 s rather than every 10 s: a new item shows within 5 s without a reload (incidents). */
  live?: boolean
  /** Who may create, edit and delete (reads need any role). */
  role?: 'write' | 'admin'
  actions?: ItemAction<T>[]
  /** The heading above `afterCreate`, when not "<singular> created". */
  createdTitle?: string
  /** Shown once after a create (a raw key, say). */
  afterCreate?: (created: T) => ReactNode
  detail?: (item: T) => ReactNode
  /** A query string every link between its pages keeps (`?page=<status page id>` for incidents). */
  search?: string
  /** The API has no GET of one item: the edit page finds it in the list. */
  itemFromList?: boolean
}
