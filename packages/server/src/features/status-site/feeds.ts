import type { IncidentView, PageView } from './page-view.ts'
import { escapeHtml, formatDate, INCIDENT_STATUS_TEXT, OVERALL_TEXT, STATUS_TEXT } from './render.ts'

const FEED_ITEMS = 50

/** The incident's updates as escaped HTML, newest first (feed readers show it as the entry's content). */
function incidentHtml(incident: IncidentView): string {
  const updates = incident.updates
    .map(
      (u) =>
        `<p><strong>${INCIDENT_STATUS_TEXT[u.status]}</strong> (${formatDate(u.publishedAt)}): ${escapeHtml(u.description)}</p>`,
    )
    .join('')
  const affected = [...new Set(incident.components.map((c) => escapeHtml(c.name)))]
  return affected.length > 0 ? `${updates}<p>Affected: ${affected.join(', ')}</p>` : updates
}

function feedIncidents(view: PageView): IncidentView[] {
  return [...view.ongoing, ...view.past].slice(0, FEED_ITEMS)
}

const latestOf = (incident: IncidentView) => incident.updates[0]?.publishedAt ?? incident.startedAt

/** RSS 2.0: one item per incident, its updates as the description. */
export function renderRss(view: PageView, pageUrl: string): string {
  const items = feedIncidents(view)
    .map(
      (incident) =>
        `<item><title>${escapeHtml(`${incident.name} (${INCIDENT_STATUS_TEXT[incident.status]})`)}</title><link>${escapeHtml(`${pageUrl}#incident-${incident.id}`)}</link><guid isPermaLink="false">${incident.id}</guid><pubDate>${new Date(incident.startedAt).toUTCString()}</pubDate><description>${escapeHtml(incidentHtml(incident))}</description></item>`,
    )
    .join('')
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>${escapeHtml(`${view.name} incident history`)}</title><link>${escapeHtml(pageUrl)}</link><description>${escapeHtml(`Incidents of ${view.name}`)}</description><atom:link href="${escapeHtml(`${pageUrl}/feed.rss`)}" rel="self" type="application/rss+xml"/><lastBuildDate>${new Date(view.generatedAt).toUTCString()}</lastBuildDate>${items}</channel></rss>
`
}

/** Atom 1.0: one entry per incident, updated with its latest update. */
export function renderAtom(view: PageView, pageUrl: string, pageId: string): string {
  const incidents = feedIncidents(view)
  const updated = incidents.map(latestOf).sort().at(-1) ?? view.generatedAt
  const entries = incidents
    .map(
      (incident) =>
        `<entry><id>urn:uuid:${incident.id}</id><title>${escapeHtml(`${incident.name} (${INCIDENT_STATUS_TEXT[incident.status]})`)}</title><link href="${escapeHtml(`${pageUrl}#incident-${incident.id}`)}"/><published>${incident.startedAt}</published><updated>${latestOf(incident)}</updated><content type="html">${escapeHtml(incidentHtml(incident))}</content></entry>`,
    )
    .join('')
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>urn:uuid:${pageId}</id><title>${escapeHtml(`${view.name} incident history`)}</title><updated>${updated}</updated><author><name>${escapeHtml(view.name)}</name></author><link rel="self" type="application/atom+xml" href="${escapeHtml(`${pageUrl}/feed.atom`)}"/><link rel="alternate" type="text/html" href="${escapeHtml(pageUrl)}"/>${entries}</feed>
`
}

/** The page as JSON for machines: statuses, uptime and incidents, nothing internal. */
export function renderSummary(view: PageView, pageUrl: string) {
  const incident = (i: IncidentView) => ({
    id: i.id,
    name: i.name,
    severity: i.severity,
    status: i.status,
    startedAt: i.startedAt,
    resolvedAt: i.resolvedAt,
    duration: i.duration,
    components: i.components,
    updates: i.updates,
  })
  return {
    page: { name: view.name, url: pageUrl, description: view.description, updatedAt: view.generatedAt },
    status: { indicator: view.overall, description: OVERALL_TEXT[view.overall] },
    cards: view.cards.map((card) => ({
      name: card.name,
      services: card.services.map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        status: s.status,
        statusText: STATUS_TEXT[s.status],
        uptime: s.uptime,
        days: s.days.map((d) => ({ date: d.date, uptime: d.uptime })),
      })),
    })),
    ongoingIncidents: view.ongoing.map(incident),
    pastIncidents: view.past.map(incident),
  }
}
