import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, type ReactNode, useState } from 'react'
import { api, listOf } from '../api.ts'
import { Link, navigate } from '../router.tsx'
import { useSession } from '../session.tsx'
import { type DraftUpdate, useDraft } from '../ui/edited-errors.ts'
import {
  CheckboxInput,
  type Draft,
  ListInput,
  NumberInput,
  SelectInput,
  TextInput,
  timeZoneNames,
} from '../ui/form-fields.tsx'
import { Cell, Row, StackTable } from '../ui/table.tsx'
import { Button, Card, Empty, ErrorBox, Loading, PageHeader } from '../ui/ui.tsx'
import type { FieldSpec, ItemAction, ResourceDescriptor } from './descriptor.ts'

type Item = Record<string, unknown>

function allowed(
  role: 'write' | 'admin' | undefined,
  session: { canWrite: boolean; isAdmin: boolean },
): boolean {
  return role === 'admin' ? session.isAdmin : session.canWrite
}

export function ResourcePage(props: { descriptor: ResourceDescriptor<Item>; id?: string }) {
  const { descriptor, id } = props
  if (id === 'new') return <ResourceForm descriptor={descriptor} />
  if (id) return <ResourceEdit descriptor={descriptor} id={id} />
  return <ResourceList descriptor={descriptor} />
}

function ResourceList(props: { descriptor: ResourceDescriptor<Item> }) {
  const { descriptor } = props
  const session = useSession()
  const may = allowed(descriptor.role, session)
  const list = useQuery({
    queryKey: [descriptor.key],
    queryFn: () => listOf<Item>(descriptor.listPath),
    refetchInterval: descriptor.live ? 3000 : 10_000,
  })
  return (
    <>
      <PageHeader
        title={descriptor.title}
        subtitle={descriptor.description}
        actions={
          may &&
          descriptor.createPath && (
            <Link
              className="btn btn-primary"
              href={`/settings/${descriptor.key}/new${descriptor.search ?? ''}`}
            >
              {descriptor.createLabel ?? `New ${descriptor.singular}`}
            </Link>
          )
        }
      />
      <ErrorBox error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : (list.data ?? []).length === 0 ? (
        <Empty>No {descriptor.title.toLowerCase()} yet.</Empty>
      ) : (
        <div className="table-wrap">
          <StackTable
            columns={[
              ...descriptor.columns.map(({ label, className }) => ({ label, className })),
              { label: 'Actions', labelHidden: true },
            ]}
          >
            {(list.data ?? []).map((item) => (
              <ResourceRow key={descriptor.idOf(item)} descriptor={descriptor} item={item} />
            ))}
          </StackTable>
        </div>
      )}
    </>
  )
}

/** A row's own actions and its delete, each reading the list again when done. */
function useRowMutations(descriptor: ResourceDescriptor<Item>, item: Item) {
  const client = useQueryClient()
  const [message, setMessage] = useState<string | null>(null)
  const action = useMutation({
    mutationFn: (run: (item: Item) => Promise<string>) => run(item),
    // An action may change the item (closing an incident): the list is read again.
    onSuccess: (text) => {
      setMessage(text)
      void client.invalidateQueries({ queryKey: [descriptor.key] })
    },
  })
  const remove = useMutation({
    mutationFn: () => api.delete(descriptor.itemPath(descriptor.idOf(item))),
    onSuccess: () => void client.invalidateQueries({ queryKey: [descriptor.key] }),
  })
  return { message, action, remove }
}

function ResourceRow(props: { descriptor: ResourceDescriptor<Item>; item: Item }) {
  const { descriptor, item } = props
  return (
    <Row>
      {descriptor.columns.map((column) => (
        <Cell key={column.label} label={column.label} className={column.className}>
          {column.render(item)}
        </Cell>
      ))}
      <Cell label="Actions" className="row-actions">
        <RowActions descriptor={descriptor} item={item} />
      </Cell>
    </Row>
  )
}

/** Edit (or Open), the descriptor's own actions with their answer, and Delete, as the role allows. */
function RowActions(props: { descriptor: ResourceDescriptor<Item>; item: Item }) {
  const { descriptor, item } = props
  const session = useSession()
  const id = descriptor.idOf(item)
  const { message, action, remove } = useRowMutations(descriptor, item)
  const may = allowed(descriptor.role, session)
  return (
    <>
      <div className="actions">
        {(descriptor.updateMethod || descriptor.detail) && (
          <Link
            className="btn btn-small"
            href={`/settings/${descriptor.key}/${encodeURIComponent(id)}${descriptor.search ?? ''}`}
          >
            {may && descriptor.updateMethod ? 'Edit' : 'Open'}
          </Link>
        )}
        {descriptor.actions
          ?.filter((entry) => allowed(entry.role ?? descriptor.role, session))
          .map((entry) => (
            <ItemActionButton
              key={entry.label}
              entry={entry}
              item={item}
              pending={action.isPending}
              run={() => action.mutate(entry.run)}
            />
          ))}
        {may && descriptor.canDelete !== false && (
          <Button
            className="btn-small"
            variant="danger"
            aria-label={`Delete ${descriptor.nameOf(item)}`}
            onClick={() => {
              if (confirm(`Delete ${descriptor.singular} "${descriptor.nameOf(item)}"?`)) remove.mutate()
            }}
          >
            Delete
          </Button>
        )}
      </div>
      {message && (
        <p className="hint" role="status">
          {message}
        </p>
      )}
      <ErrorBox error={action.error ?? remove.error} />
    </>
  )
}

/** A descriptor's action on one item, or the item's state where the action has nothing left to do. */
function ItemActionButton(props: { entry: ItemAction<Item>; item: Item; pending: boolean; run(): void }) {
  const { entry, item } = props
  const done = entry.doneAs?.(item)
  if (done) return <span className="muted">{done}</span>
  return (
    <Button className="btn-small" disabled={props.pending} onClick={props.run}>
      {entry.label}
    </Button>
  )
}

function ResourceEdit(props: { descriptor: ResourceDescriptor<Item>; id: string }) {
  const { descriptor, id } = props
  const item = useQuery({
    queryKey: [descriptor.key, id],
    queryFn: async () => {
      if (!descriptor.itemFromList) return api.get<Item>(descriptor.itemPath(id))
      const list = await listOf<Item>(descriptor.listPath)
      const found = list.find((entry) => descriptor.idOf(entry) === id)
      if (!found) throw new Error(`No ${descriptor.singular} ${id}`)
      return found
    },
    refetchInterval: 10_000,
  })
  if (item.isPending) return <Loading />
  if (item.error || !item.data) return <ErrorBox error={item.error} />
  return <ResourceForm descriptor={descriptor} item={item.data} />
}

function ResourceForm(props: { descriptor: ResourceDescriptor<Item>; item?: Item }) {
  const { descriptor, item } = props
  const session = useSession()
  const creating = !item
  const may = allowed(descriptor.role, session) && (creating || Boolean(descriptor.updateMethod))
  const [created, setCreated] = useState<Item | null>(null)
  const save = useSaveResource(descriptor, item, setCreated)
  const { draft, setDraft, error } = useDraft(
    () => (item ? (descriptor.toDraft?.(item) ?? { ...item }) : { ...descriptor.defaults }),
    save.error,
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(draft)
  }
  const title = creating ? (descriptor.createLabel ?? `New ${descriptor.singular}`) : descriptor.nameOf(item)
  return (
    <>
      <PageHeader
        crumbs={
          <Link href={`/settings/${descriptor.key}${descriptor.search ?? ''}`}>{descriptor.title}</Link>
        }
        title={title}
      />
      {created && descriptor.afterCreate ? (
        <CreatedCard descriptor={descriptor} created={created} />
      ) : (
        <form onSubmit={submit} noValidate aria-label={title}>
          <Card>
            <ErrorBox error={error} />
            <fieldset disabled={!may} className="plain-fieldset">
              <FormSections
                fields={descriptor.fields.filter((field) => !field.show || field.show(draft, creating))}
                draft={draft}
                onChange={setDraft}
                error={error}
              />
            </fieldset>
            {may && (
              <div className="form-actions">
                <Link className="btn" href={`/settings/${descriptor.key}${descriptor.search ?? ''}`}>
                  Cancel
                </Link>
                <Button type="submit" variant="primary" disabled={save.isPending}>
                  {creating ? (descriptor.createLabel ?? `Create ${descriptor.singular}`) : 'Save'}
                </Button>
              </div>
            )}
          </Card>
        </form>
      )}
      {item && descriptor.detail?.(item)}
    </>
  )
}

/** Creates (POST) or saves (PUT or PATCH) the draft; then back to the list, or to what a create answered. */
function useSaveResource(
  descriptor: ResourceDescriptor<Item>,
  item: Item | undefined,
  onCreated: (created: Item) => void,
) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (draft: Draft) => {
      const body = descriptor.toBody ? descriptor.toBody(draft, !item) : draft
      if (!item) return api.post<Item>(descriptor.createPath as string, body)
      const path = descriptor.itemPath(descriptor.idOf(item))
      return descriptor.updateMethod === 'patch' ? api.patch<Item>(path, body) : api.put<Item>(path, body)
    },
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: [descriptor.key] })
      if (!item && descriptor.afterCreate) onCreated(saved)
      else navigate(`/settings/${descriptor.key}${descriptor.search ?? ''}`)
    },
  })
}

/** What a create answered once (a raw key, say), shown instead of the form until Done. */
function CreatedCard(props: { descriptor: ResourceDescriptor<Item>; created: Item }) {
  const { descriptor } = props
  return (
    <Card title={descriptor.createdTitle ?? `${descriptor.singular} created`}>
      {descriptor.afterCreate?.(props.created)}
      <div className="form-actions">
        <Link className="btn" href={`/settings/${descriptor.key}${descriptor.search ?? ''}`}>
          Done
        </Link>
      </div>
    </Card>
  )
}

/** The form's fields, under their section headings where the descriptor names one. */
function FormSections(props: {
  fields: FieldSpec[]
  draft: Draft
  onChange(update: DraftUpdate): void
  error: unknown
}) {
  return (
    <>
      {sectionsOf(props.fields).map(({ title, fields }) => {
        const grid = (
          // A field alone (a member's role, say) keeps one column's width.
          <div className={fields.length === 1 ? 'form-grid form-grid-fill' : 'form-grid'}>
            {fields.map((field) => (
              <FieldFor
                key={field.path}
                field={field}
                draft={props.draft}
                onChange={props.onChange}
                error={props.error}
              />
            ))}
          </div>
        )
        if (!title) return <div key={fields[0]?.path}>{grid}</div>
        return (
          <fieldset key={title} className="form-section">
            <legend>{title}</legend>
            {grid}
          </fieldset>
        )
      })}
    </>
  )
}

/** Runs of fields under one section heading (or none), in the descriptor's order. */
function sectionsOf(fields: FieldSpec[]): { title?: string; fields: FieldSpec[] }[] {
  const sections: { title?: string; fields: FieldSpec[] }[] = []
  for (const field of fields) {
    const last = sections.at(-1)
    if (last && last.title === field.section) last.fields.push(field)
    else sections.push({ title: field.section, fields: [field] })
  }
  return sections
}

function FieldFor(props: {
  field: FieldSpec
  draft: Draft
  onChange(update: DraftUpdate): void
  error: unknown
}): ReactNode {
  const { field } = props
  const bind = {
    draft: props.draft,
    onChange: props.onChange,
    error: props.error,
    path: field.path,
    label: field.label,
    hint: field.hint,
  }
  const remote = useQuery({
    queryKey: ['options', field.optionsFrom?.path],
    enabled: Boolean(field.optionsFrom),
    queryFn: () => listOf<Item>(field.optionsFrom?.path as string),
  })
  switch (field.kind) {
    case 'custom':
      return field.render?.({ draft: props.draft, onChange: props.onChange, error: props.error }) ?? null
    case 'number':
      return <NumberInput {...bind} min={field.min} max={field.max} />
    case 'checkbox':
      return <CheckboxInput {...bind} />
    case 'list':
      return <ListInput {...bind} />
    case 'textarea':
      return <TextInput {...bind} multiline />
    case 'password':
      return <TextInput {...bind} type="password" />
    case 'datetime':
      return <TextInput {...bind} type="datetime-local" />
    case 'timezone':
      return <TextInput {...bind} suggestions={timeZoneNames()} />
    case 'select': {
      const from = field.optionsFrom
      const options = from
        ? ([
            ['', '—'],
            ...(remote.data ?? []).map((entry) => [String(entry[from.value]), String(entry[from.label])]),
          ] as [string, string][])
        : (field.options ?? [])
      return <SelectInput {...bind} options={options} numeric={field.numeric} />
    }
    default:
      return <TextInput {...bind} required={field.required} />
  }
}
