import { createHash } from 'node:crypto'
import { escapeHtml, formatDate, type HtmlPage, INCIDENT_STATUS_TEXT } from '../status-site/render.ts'
import type { DashboardIncident } from './dashboard-incidents.schemas.ts'
import type { CheckState, DashboardCheckView, DashboardView } from './dashboard-view.ts'

/** A dashboard's public page: server-side HTML without script, reloading itself (and paging) by meta refresh. */

const STATE_TEXT: Record<CheckState, string> = {
  passing: 'Passing',
  degraded: 'Degraded',
  failing: 'Failing',
  none: 'No runs yet',
}
const IMPACT_TEXT: Record<string, string> = { MINOR: 'Minor', MAJOR: 'Major', MAINTENANCE: 'Maintenance' }

const CSS = `
:root{color-scheme:light dark;--bg:#F7F9FB;--card:#fff;--fg:#2E3A45;--muted:#5F6B76;--border:#DDE3E8;--link:#0059C2}
@media (prefers-color-scheme:dark){:root{--bg:#0F1419;--card:#161C22;--fg:#D5DDE5;--muted:#94A1AD;--border:#2A333C;--link:#7DB7FF}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}
.wrap{margin:0 auto;padding:0 24px}.w960{max-width:960px}
header.top{display:flex;align-items:center;gap:16px;padding:20px 0}
header.top img{max-height:40px;max-width:200px;display:block}
header.top h1{margin:0;font-size:1.4rem}
.summary{display:flex;gap:16px;flex-wrap:wrap;margin:0 0 16px;padding:0;list-style:none}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(280px,1fr));gap:12px;list-style:none;margin:0;padding:0}
.check{background:var(--card);border:1px solid var(--border);border-left:6px solid var(--level);border-radius:8px;padding:12px 16px}
.check h2{font-size:1rem;margin:0;overflow-wrap:anywhere}
.check p{margin:4px 0 0;font-size:.9rem}
.muted{color:var(--muted)}
.state{font-weight:600;color:var(--level)}
.tag{display:inline-block;border:1px solid var(--border);border-radius:4px;padding:0 6px;margin:4px 4px 0 0;font-size:.8rem}
.passing{--level:#1f9d55}.degraded{--level:#d4a017}.failing{--level:#d93025}.none{--level:#8a96a3}
.incident{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:12px 16px;margin-bottom:12px}
.incident h3{margin:0;font-size:1rem}
section>h2{font-size:1.1rem;margin:16px 0 8px}
.incident ol{margin:8px 0 0;padding-left:18px}
.desc{white-space:pre-line;overflow-wrap:anywhere}
footer{padding:24px 0 40px;font-size:.85rem;color:var(--muted)}
`

/** `base` is the page's own path ('' on a custom domain); the refresh goes to `base?page=next`. */
export function renderDashboardPage(view: DashboardView, base: string): HtmlPage {
  const { settings } = view
  // The account's own CSS comes last; `<` is escaped so it can't close the style element.
  const css = CSS + (settings.customCSS ?? '').replace(/</g, '\\3c ')
  const styleHash = createHash('sha256').update(css).digest('base64')
  const title = escapeHtml(settings.header || 'Dashboard')
  const next = view.pages > 1 ? (view.page % view.pages) + 1 : view.page
  const refresh = view.pages > 1 ? settings.paginationRate : settings.refreshRate
  const refreshUrl = `${base || '/'}${next > 1 ? `?page=${next}` : ''}`
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="refresh" content="${refresh};url=${escapeHtml(refreshUrl)}">
<title>${title}</title>
<link rel="icon" href="${settings.favicon ? escapeHtml(settings.favicon) : 'data:,'}">
<style>${css}</style></head>
<body><div class="wrap${settings.width === '960PX' ? ' w960' : ''}">
${settings.showHeader ? headerHtml(view) : ''}
<main>${incidentsHtml(view)}
<ul class="summary" aria-label="Checks by status">${(['failing', 'degraded', 'passing'] as const)
    .map(
      (state) =>
        `<li class="${state}"><span class="state">${view.counts[state]}</span> ${STATE_TEXT[state].toLowerCase()}</li>`,
    )
    .join('')}</ul>
${
  view.checks.length > 0
    ? `<ul class="checks">${view.checks.map((check) => checkItem(check, view)).join('')}</ul>`
    : '<p class="muted">No checks match this dashboard.</p>'
}
</main>
<footer>Updated ${time(view.generatedAt)}${view.pages > 1 ? ` · page ${view.page} of ${view.pages}` : ''} · Powered by svc</footer>
</div></body></html>`
  return {
    html,
    csp: `default-src 'none'; style-src 'sha256-${styleHash}'; img-src https: http: data:; base-uri 'none'; frame-ancestors 'none'`,
  }
}

const time = (iso: string) => `<time datetime="${iso}">${formatDate(iso)}</time>`

function headerHtml(view: DashboardView): string {
  const { settings } = view
  const image = settings.logo ? `<img src="${escapeHtml(settings.logo)}" alt="Logo">` : ''
  const logo = image && settings.link ? `<a href="${escapeHtml(settings.link)}">${image}</a>` : image
  const description = settings.description ? `<p>${escapeHtml(settings.description)}</p>` : ''
  return `<header class="top">${logo}<h1>${escapeHtml(settings.header || 'Dashboard')}</h1></header>${description}`
}

function checkItem(check: DashboardCheckView, view: DashboardView): string {
  const { settings } = view
  const figures: string[] = []
  if (check.availability !== null) figures.push(`${check.availability}% success (24 h)`)
  if (check.avg !== null) figures.push(`avg ${Math.round(check.avg)} ms`)
  if (settings.showP95 && check.p95 !== null) figures.push(`p95 ${Math.round(check.p95)} ms`)
  if (settings.showP99 && check.p99 !== null) figures.push(`p99 ${Math.round(check.p99)} ms`)
  const group =
    settings.showGroupNames && check.groupName ? `<p class="muted">${escapeHtml(check.groupName)}</p>` : ''
  const tags =
    !settings.hideTags && check.tags.length > 0
      ? `<p>${check.tags.map((tag) => `<span class="tag">${escapeHtml(tag)}</span>`).join('')}</p>`
      : ''
  const lastRun = check.lastRunAt ? `<p class="muted">Last run ${time(check.lastRunAt)}</p>` : ''
  return `<li class="check ${check.state}" data-check-id="${check.id}"><h2>${escapeHtml(check.name)}</h2><p class="state">${STATE_TEXT[check.state]}</p>${group}${
    figures.length > 0 ? `<p>${figures.join(' · ')}</p>` : ''
  }${settings.expandChecks ? lastRun : ''}${tags}</li>`
}

function incidentsHtml(view: DashboardView): string {
  const nowMs = Date.parse(view.incidentsReadAt)
  const section = (title: string, list: DashboardIncident[]) =>
    list.length > 0
      ? `<section><h2>${title}</h2>${list.map((incident) => incidentArticle(incident, nowMs)).join('')}</section>`
      : ''
  return section('Ongoing incidents', view.ongoing) + section('Recent incidents', view.recent)
}

function incidentArticle(incident: DashboardIncident, nowMs: number): string {
  const facts = [`<strong>${IMPACT_TEXT[incident.impact] ?? escapeHtml(incident.impact)}</strong>`]
  if (incident.startedAt) facts.push(`started ${time(incident.startedAt)}`)
  // An end still ahead (planned work) has not happened yet; the dashboard's incidents list says "ends" too.
  const { stoppedAt } = incident
  if (stoppedAt) facts.push(`${Date.parse(stoppedAt) > nowMs ? 'ends' : 'stopped'} ${time(stoppedAt)}`)
  const updates = [...incident.incidentUpdates]
    .reverse()
    .map(
      (u) =>
        `<li><strong>${INCIDENT_STATUS_TEXT[u.status] ?? 'Maintenance'}</strong> <span class="muted">${time(u.created_at)}</span>${u.description ? `<div class="desc">${escapeHtml(u.description)}</div>` : ''}</li>`,
    )
    .join('')
  return `<article class="incident"><h3>${escapeHtml(incident.name)}</h3><p class="muted">${facts.join(' · ')}</p><ol aria-label="Updates, newest first">${updates}</ol></article>`
}
