import { CreateVariableBody, MaintenanceWindowBody } from '@svc/core'
import { badRequest } from '../../http/errors.ts'
import { compileValidator } from '../../http/validation.ts'
import { DashboardCreateBody, SETTINGS_DEFAULTS } from '../dashboards/dashboards.schemas.ts'
import * as dashboards from '../dashboards/dashboards.service.ts'
import * as windows from '../maintenance-windows/maintenance-windows.service.ts'
import { PrivateLocationBody } from '../private-locations/private-locations.schemas.ts'
import * as locations from '../private-locations/private-locations.service.ts'
import { ServiceBody } from '../status-page-services/status-page-services.schemas.ts'
import * as services from '../status-page-services/status-page-services.service.ts'
import { StatusPageBody } from '../status-pages/status-pages.schemas.ts'
import * as pages from '../status-pages/status-pages.service.ts'
import * as variables from '../variables/variables.service.ts'
import { found, knownFields, type Prepared, type ResourceType, throwIf } from './resource-helpers.ts'

/**
 * The resource types around checks: private locations, status page services, maintenance windows,
 * status pages, dashboards and account variables, each saved through its feature's service. Orders put what others refer to first:
 * private locations and services before checks (a check's triggerIncident names a service), status
 * pages last (their cards show services).
 */

const validateLocation = compileValidator(PrivateLocationBody)
const validateService = compileValidator(ServiceBody)
const validateWindow = compileValidator(MaintenanceWindowBody)
const validatePage = compileValidator(StatusPageBody)
const validateDashboard = compileValidator(DashboardCreateBody)
const validateVariable = compileValidator(CreateVariableBody)

/** A type whose payload is svc's body as it is (only fields that say nothing dropped). */
function plainBody(
  properties: Record<string, unknown>,
  validate: ReturnType<typeof compileValidator>,
): ResourceType['bodyOf'] {
  return (payload, _refs, path) => {
    const body = knownFields(payload, properties, [])
    const sentFields = new Set(Object.keys(body))
    throwIf(validate(body, path))
    return { body, sentFields }
  }
}

const privateLocation: ResourceType = {
  order: 0,
  bodyOf: plainBody(PrivateLocationBody.properties, validateLocation),
  async create(ctx, accountId, { body }) {
    return String((await locations.createLocation(ctx, accountId, body as PrivateLocationBody)).id)
  },
  async update(ctx, accountId, id, { body }) {
    await locations.updateLocation(ctx, accountId, id, body as PrivateLocationBody)
  },
  remove: (ctx, accountId, id) => locations.deleteLocation(ctx, accountId, id),
  exists: (ctx, accountId, id) => found(() => locations.getLocation(ctx, accountId, id)),
}

const statusPageService: ResourceType = {
  order: 1,
  bodyOf: plainBody(ServiceBody.properties, validateService),
  async create(ctx, accountId, { body }) {
    return (await services.createService(ctx, accountId, body as ServiceBody)).id
  },
  async update(ctx, accountId, id, { body }) {
    await services.updateService(ctx, accountId, id, body as ServiceBody)
  },
  remove: (ctx, accountId, id) => services.deleteService(ctx, accountId, id),
  exists: (ctx, accountId, id) => found(() => services.getService(ctx, accountId, id)),
}

const maintenanceWindow: ResourceType = {
  order: 6,
  bodyOf: plainBody(MaintenanceWindowBody.properties, validateWindow),
  async create(ctx, accountId, { body }) {
    return String((await windows.createWindow(ctx, accountId, body as MaintenanceWindowBody)).id)
  },
  async update(ctx, accountId, id, { body }) {
    // A deploy replaces the window whole: what the project leaves out goes back to its default.
    const whole = { repeatUnit: null, repeatInterval: null, repeatEndsAt: null, timezone: null, ...body }
    await windows.updateWindow(ctx, accountId, Number(id), whole as MaintenanceWindowBody)
  },
  remove: (ctx, accountId, id) => windows.deleteWindow(ctx, accountId, Number(id)),
  exists: (ctx, accountId, id) => found(() => windows.getWindow(ctx, accountId, Number(id))),
}

/** The hosted CLI names a card's services by reference (`{ref}`); svc's cards take `{id}`. */
const statusPage: ResourceType = {
  order: 7,
  bodyOf(payload, refs, path): Prepared {
    const cards = Array.isArray(payload.cards) ? payload.cards : []
    const body = knownFields(
      {
        ...payload,
        cards: cards.map((card: Record<string, unknown>, c: number) => {
          const cardPath = `${path}.cards.${c}`
          if (typeof card !== 'object' || card === null) throw badRequest(`${cardPath} must be object`)
          const listed = Array.isArray(card.services) ? card.services : []
          return {
            ...card,
            services: listed.map((service: unknown, s: number) => ({
              id: refs(service, `${cardPath}.services.${s}`),
            })),
          }
        }),
      },
      StatusPageBody.properties,
      [],
    )
    const sentFields = new Set(Object.keys(body))
    throwIf(validatePage(body, path))
    return { body, sentFields }
  },
  async create(ctx, accountId, { body }) {
    return (await pages.createStatusPage(ctx, accountId, body as StatusPageBody)).id
  },
  async update(ctx, accountId, id, { body }) {
    await pages.updateStatusPage(ctx, accountId, id, body as StatusPageBody)
  },
  remove: (ctx, accountId, id) => pages.deleteStatusPage(ctx, accountId, id),
  exists: (ctx, accountId, id) => found(() => pages.getStatusPage(ctx, accountId, id)),
}

/**
 * The hosted CLI's Dashboard construct; its header is optional there. A deploy replaces the dashboard
 * whole: a setting the construct leaves out takes its default again.
 */
const dashboard: ResourceType = {
  order: 8,
  bodyOf: (payload, refs, path) =>
    plainBody(DashboardCreateBody.properties, validateDashboard)({ header: '', ...payload }, refs, path),
  async create(ctx, accountId, { body }) {
    return (await dashboards.createDashboard(ctx, accountId, body as DashboardCreateBody)).dashboardId
  },
  async update(ctx, accountId, id, { body }) {
    const whole = { ...SETTINGS_DEFAULTS, customUrl: null, customDomain: null, tags: [], ...body }
    await dashboards.updateDashboard(ctx, accountId, id, whole)
  },
  remove: (ctx, accountId, id) => dashboards.deleteDashboard(ctx, accountId, id),
  exists: (ctx, accountId, id) => found(() => dashboards.findDashboard(ctx, accountId, id)),
}

/**
 * An account variable; its physical id is its key. A deploy replaces it whole (what the construct leaves
 * out takes its default again). The API keeps a key, and a secret's secrecy, for good: a construct that
 * changes either makes the variable anew, which loses nothing, as the project holds the value.
 */
const environmentVariable: ResourceType = {
  order: 0,
  bodyOf: plainBody(CreateVariableBody.properties, validateVariable),
  async create(ctx, accountId, { body }) {
    return (await variables.createVariable(ctx, accountId, body as CreateVariableBody)).key
  },
  async update(ctx, accountId, key, { body }) {
    const whole = { locked: false, secret: false, description: '', ...body }
    await variables.updateVariable(ctx, accountId, key, whole as CreateVariableBody)
  },
  remove: (ctx, accountId, key) => variables.deleteVariable(ctx, accountId, key),
  exists: (ctx, accountId, key) => found(() => variables.getVariable(ctx, accountId, key)),
  sameResource: (before, { body }) =>
    before.key === body.key && !(before.secret === true && body.secret !== true),
}

export const SETTING_RESOURCE_TYPES: Record<string, ResourceType> = {
  dashboard,
  'environment-variable': environmentVariable,
  'private-location': privateLocation,
  'status-page-service': statusPageService,
  'maintenance-window': maintenanceWindow,
  'status-page': statusPage,
}
