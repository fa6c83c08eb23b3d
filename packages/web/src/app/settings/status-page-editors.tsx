import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import { fieldErrorsFor, listOf } from '../api.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { Button, FieldError } from '../ui/ui.tsx'

/**
 * Editors the status page and incident forms draw as `custom` fields: a page's cards with their services
 * in order, and an incident's impact on several services. Services are chosen by name from the account's
 * list; the draft keeps their ids, as the API takes them. The API's messages show beside the card, service
 * or impact they name (`cards.1.name`, `componentImpacts.0.componentId`), as `Field` shows them.
 */

interface Bind {
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
}

export interface CardDraft {
  id?: string
  name: string
  services: string[]
}

export interface ImpactDraft {
  componentId: string
  status: string
}

export const IMPACT_STATUSES = [
  'MAJOR_OUTAGE',
  'PARTIAL_OUTAGE',
  'DEGRADED_PERFORMANCE',
  'UNDER_MAINTENANCE',
  'OPERATIONAL',
] as const

function useServiceNames(): Map<string, string> {
  const services = useQuery({
    queryKey: ['services'],
    queryFn: () => listOf<{ id: string; name: string }>('/v1/status-pages/services?limit=100'),
  })
  return new Map((services.data ?? []).map((service) => [service.id, service.name]))
}

/** `list` with the item at `index` moved by `step` (−1 up, +1 down); unchanged at an end. */
function moved<T>(list: T[], index: number, step: number): T[] {
  const target = index + step
  if (target < 0 || target >= list.length) return list
  const copy = [...list]
  ;[copy[index], copy[target]] = [copy[target] as T, copy[index] as T]
  return copy
}

function OrderButtons(props: { what: string; index: number; count: number; move(step: number): void }) {
  return (
    <>
      <Button
        className="btn-small"
        aria-label={`Move ${props.what} up`}
        disabled={props.index === 0}
        onClick={() => props.move(-1)}
      >
        ↑
      </Button>
      <Button
        className="btn-small"
        aria-label={`Move ${props.what} down`}
        disabled={props.index === props.count - 1}
        onClick={() => props.move(1)}
      >
        ↓
      </Button>
    </>
  )
}

/** A status page's cards, each with a name and its services, both in the order the public page shows. */
export function CardsEditor(props: { bind: Bind }) {
  const { bind } = props
  const names = useServiceNames()
  const cards = (bind.draft.cards ?? []) as CardDraft[]
  const setCards = (next: CardDraft[]) => bind.onChange({ ...bind.draft, cards: next })
  const setCard = (index: number, card: CardDraft) => setCards(cards.map((c, i) => (i === index ? card : c)))
  const errorId = useId()
  const errors = fieldErrorsFor(bind.error, 'cards', true)
  return (
    <fieldset className="form-wide editor-list" aria-describedby={errors.length ? errorId : undefined}>
      <legend>Cards and their services</legend>
      <FieldError id={errorId} name="cards" errors={errors} />
      {cards.length === 0 && <p className="hint">No cards yet: the public page shows no services.</p>}
      {cards.map((card, index) => (
        <CardEditor
          // biome-ignore lint/suspicious/noArrayIndexKey: new cards have no id; order is the identity here
          key={index}
          card={card}
          index={index}
          count={cards.length}
          names={names}
          error={bind.error}
          onChange={(next) => setCard(index, next)}
          onMove={(step) => setCards(moved(cards, index, step))}
          onRemove={() => setCards(cards.filter((_, i) => i !== index))}
        />
      ))}
      <Button className="btn-small" onClick={() => setCards([...cards, { name: 'Services', services: [] }])}>
        Add a card
      </Button>
    </fieldset>
  )
}

function CardEditor(props: {
  card: CardDraft
  index: number
  count: number
  names: Map<string, string>
  error: unknown
  onChange(card: CardDraft): void
  onMove(step: number): void
  onRemove(): void
}) {
  const { card, names } = props
  const nameId = useId()
  const path = `cards.${props.index}`
  const servicesErrors = fieldErrorsFor(props.error, `${path}.services`, true)
  const label = card.name || `card ${props.index + 1}`
  const unused = [...names].filter(([id]) => !card.services.includes(id))
  const setServices = (services: string[]) => props.onChange({ ...card, services })
  return (
    <div className="editor-card">
      <CardNameRow
        card={card}
        index={props.index}
        count={props.count}
        label={label}
        error={props.error}
        onChange={props.onChange}
        onMove={props.onMove}
        onRemove={props.onRemove}
      />
      <CardServices
        services={card.services}
        names={names}
        label={label}
        path={path}
        idPrefix={nameId}
        error={props.error}
        onChange={setServices}
      />
      <AddService
        unused={unused}
        errors={servicesErrors}
        path={path}
        onAdd={(id) => setServices([...card.services, id])}
      />
    </div>
  )
}

/** A card's name, its order buttons and Remove, with the API's messages for its name. */
function CardNameRow(props: {
  card: CardDraft
  index: number
  count: number
  label: string
  error: unknown
  onChange(card: CardDraft): void
  onMove(step: number): void
  onRemove(): void
}) {
  const { card, label } = props
  const nameId = useId()
  const path = `cards.${props.index}`
  const nameErrors = [
    ...fieldErrorsFor(props.error, `${path}.name`),
    ...fieldErrorsFor(props.error, `${path}.id`),
  ]
  return (
    <div className="editor-row">
      <label htmlFor={nameId} className="editor-label">
        Card {props.index + 1} name
      </label>
      <input
        id={nameId}
        value={card.name}
        aria-invalid={nameErrors.length > 0}
        aria-describedby={nameErrors.length ? `${nameId}-error` : undefined}
        onChange={(event) => props.onChange({ ...card, name: event.target.value })}
      />
      <OrderButtons what={`card ${label}`} index={props.index} count={props.count} move={props.onMove} />
      <Button
        className="btn-small"
        variant="danger"
        aria-label={`Remove card ${label}`}
        onClick={props.onRemove}
      >
        Remove
      </Button>
      <FieldError id={`${nameId}-error`} name={`${path}.name`} errors={nameErrors} />
    </div>
  )
}

/** A card's services in order, each with its order buttons, Remove and the API's messages for it. */
function CardServices(props: {
  services: string[]
  names: Map<string, string>
  label: string
  path: string
  idPrefix: string
  error: unknown
  onChange(services: string[]): void
}) {
  const { services, names } = props
  return (
    <ol className="editor-items">
      {services.map((id, index) => (
        <li key={id} className="editor-row">
          <span className="editor-grow">{names.get(id) ?? id}</span>
          <OrderButtons
            what={names.get(id) ?? id}
            index={index}
            count={services.length}
            move={(step) => props.onChange(moved(services, index, step))}
          />
          <Button
            className="btn-small"
            aria-label={`Remove ${names.get(id) ?? id} from ${props.label}`}
            onClick={() => props.onChange(services.filter((other) => other !== id))}
          >
            Remove
          </Button>
          <FieldError
            id={`${props.idPrefix}-service-${index}-error`}
            name={`${props.path}.services.${index}`}
            errors={fieldErrorsFor(props.error, `${props.path}.services.${index}`)}
          />
        </li>
      ))}
    </ol>
  )
}

function AddService(props: {
  unused: [string, string][]
  errors: string[]
  path: string
  onAdd(id: string): void
}) {
  const addId = useId()
  const { unused, errors } = props
  return (
    <div className="editor-row">
      <label htmlFor={addId} className="editor-label">
        Add a service
      </label>
      <select
        id={addId}
        value=""
        disabled={unused.length === 0}
        aria-describedby={errors.length ? `${addId}-error` : undefined}
        onChange={(event) => event.target.value && props.onAdd(event.target.value)}
      >
        <option value="">
          {unused.length === 0 ? 'Every service is on this card' : 'Choose a service…'}
        </option>
        {unused.map(([id, name]) => (
          <option key={id} value={id}>
            {name}
          </option>
        ))}
      </select>
      <FieldError id={`${addId}-error`} name={`${props.path}.services`} errors={errors} />
    </div>
  )
}

/** An incident's impacts: one service each, with how badly it is hit. */
export function ImpactsEditor(props: { bind: Bind }) {
  const { bind } = props
  const names = useServiceNames()
  const impacts = (bind.draft.componentImpacts ?? []) as ImpactDraft[]
  const setImpacts = (next: ImpactDraft[]) => bind.onChange({ ...bind.draft, componentImpacts: next })
  const unused = [...names.keys()].filter((id) => !impacts.some((impact) => impact.componentId === id))
  const addId = useId()
  const errors = fieldErrorsFor(bind.error, 'componentImpacts', true)
  return (
    <fieldset
      className="form-wide editor-list"
      aria-describedby={errors.length ? `${addId}-error` : undefined}
    >
      <legend>Impacted services</legend>
      <FieldError id={`${addId}-error`} name="componentImpacts" errors={errors} />
      {impacts.length === 0 && <p className="hint">No service is impacted.</p>}
      <ul className="editor-items impact-items">
        {impacts.map((impact, index) => (
          <ImpactRow
            key={impact.componentId}
            impact={impact}
            index={index}
            name={names.get(impact.componentId) ?? impact.componentId}
            errorId={`${addId}-impact-${index}-error`}
            error={bind.error}
            onChange={(status) =>
              setImpacts(impacts.map((other, i) => (i === index ? { ...other, status } : other)))
            }
            onRemove={() => setImpacts(impacts.filter((_, i) => i !== index))}
          />
        ))}
      </ul>
      <div className="editor-row">
        <label className="editor-label" htmlFor={addId}>
          Add an impacted service
        </label>
        <select
          id={addId}
          value=""
          disabled={unused.length === 0}
          onChange={(event) =>
            event.target.value &&
            setImpacts([...impacts, { componentId: event.target.value, status: 'MAJOR_OUTAGE' }])
          }
        >
          <option value="">{unused.length === 0 ? 'Every service is listed' : 'Choose a service…'}</option>
          {unused.map((id) => (
            <option key={id} value={id}>
              {names.get(id)}
            </option>
          ))}
        </select>
      </div>
    </fieldset>
  )
}

function ImpactRow(props: {
  impact: ImpactDraft
  index: number
  name: string
  errorId: string
  error: unknown
  onChange(status: string): void
  onRemove(): void
}) {
  const { name, errorId } = props
  const errors = fieldErrorsFor(props.error, `componentImpacts.${props.index}`)
  return (
    <li className="editor-row">
      <span className="editor-grow">{name}</span>
      <select
        aria-label={`Impact on ${name}`}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length ? errorId : undefined}
        value={props.impact.status}
        onChange={(event) => props.onChange(event.target.value)}
      >
        {IMPACT_STATUSES.map((status) => (
          <option key={status} value={status}>
            {status.replaceAll('_', ' ').toLowerCase()}
          </option>
        ))}
      </select>
      <Button className="btn-small" aria-label={`Remove the impact on ${name}`} onClick={props.onRemove}>
        Remove
      </Button>
      <FieldError id={errorId} name={`componentImpacts.${props.index}`} errors={errors} />
    </li>
  )
}
