import { StatusPageBody, StatusPageCardBody, StatusPageServiceBody, StrictObject } from '@svc/core'
import { Type } from 'typebox'
import {
  type CheckDefaults,
  Construct,
  defined,
  type Issue,
  isConstructOf,
  PlainConstruct,
  type Resource,
} from './construct.ts'

export type StatusPageServiceProps = Omit<StatusPageServiceBody, 'checkIds'>

/** A service shown on status pages: a check's `triggerIncident` opens its incidents. */
export class StatusPageService extends PlainConstruct<StatusPageServiceProps> {
  constructor(logicalId: string, props: StatusPageServiceProps) {
    super('status-page-service', logicalId, props, ServiceProps)
  }
}

// The service's checks are not a construct's field: they would refer to checks deployed after it.
const { checkIds: _checkIds, ...serviceFields } = StatusPageServiceBody.properties
const ServiceProps = StrictObject(serviceFields)

export function isStatusPageService(service: unknown): service is StatusPageService {
  return isConstructOf(service, 'status-page-service')
}

export interface StatusPageCard {
  name: string
  /** The services the card shows, in order. */
  services: StatusPageService[]
}

export type StatusPageProps = Omit<StatusPageBody, 'cards'> & { cards: StatusPageCard[] }

function maxItemsOf(schema: object): number | undefined {
  return (schema as { maxItems?: number }).maxItems
}

// A card's services are constructs here; the server takes their ids once they are deployed.
const CardProps = StrictObject({
  name: StatusPageCardBody.properties.name,
  services: Type.Array(Type.Unknown(), { maxItems: maxItemsOf(StatusPageCardBody.properties.services) }),
})
const PageProps = StrictObject({
  ...StatusPageBody.properties,
  cards: Type.Array(CardProps, { maxItems: maxItemsOf(StatusPageBody.properties.cards) }),
})

/** A public status page at `/status/{url}`, its cards showing the project's services. */
export class StatusPage extends Construct {
  readonly props: StatusPageProps

  constructor(logicalId: string, props: StatusPageProps) {
    super('status-page', logicalId)
    this.props = props ?? ({} as StatusPageProps)
  }

  private cards(): StatusPageCard[] {
    return Array.isArray(this.props.cards) ? this.props.cards : []
  }

  validate(_defaults: CheckDefaults): Issue[] {
    const notServices = this.cards().flatMap((card, c) =>
      (Array.isArray(card?.services) ? card.services : [])
        .map((service, s) => ({ service, s }))
        .filter(({ service }) => !isStatusPageService(service))
        .map(({ s }) => this.issue(`cards.${c}.services.${s}`, 'must be a StatusPageService construct')),
    )
    return [
      ...this.logicalIdIssues(),
      ...this.schemaIssues(PageProps, defined({ ...this.props })),
      ...notServices,
    ]
  }

  /** The hosted CLI's payload: each card's services by reference. */
  synthesize(): Resource[] {
    const payload = defined({
      ...this.props,
      cards: this.cards().map((card) => ({
        name: card.name,
        services: card.services.map((service) => service.ref()),
      })),
    })
    return [{ logicalId: this.logicalId, type: this.type, member: true, payload }]
  }
}
