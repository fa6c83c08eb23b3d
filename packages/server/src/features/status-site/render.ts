import { createHash } from 'node:crypto'
import { type ComponentStatus, THEME_COLOR_NAMES, type ThemePalette } from '@svc/core'
import type { BarLevel, IncidentView, PageView, ServiceView } from './page-view.ts'

/**
 * Text of every value placed in HTML or XML, attributes included. Characters that XML 1.0 forbids
 * (control characters such as a pasted terminal escape, U+FFFE, lone surrogates) become U+FFFD: one of
 * them would make feed readers reject the whole feed.
 */
export function escapeHtml(value: string): string {
  return value.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"']/g, (c) => ESCAPES[c] as string)
}
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

export const STATUS_TEXT: Record<ComponentStatus, string> = {
  OPERATIONAL: 'Operational',
  UNDER_MAINTENANCE: 'Under maintenance',
  DEGRADED_PERFORMANCE: 'Degraded performance',
  PARTIAL_OUTAGE: 'Partial outage',
  MAJOR_OUTAGE: 'Major outage',
}
export const OVERALL_TEXT: Record<ComponentStatus, string> = {
  OPERATIONAL: 'All systems operational',
  UNDER_MAINTENANCE: 'Maintenance in progress',
  DEGRADED_PERFORMANCE: 'Degraded performance',
  PARTIAL_OUTAGE: 'Partial outage',
  MAJOR_OUTAGE: 'Major outage',
}
export const INCIDENT_STATUS_TEXT: Record<string, string> = {
  INVESTIGATING: 'Investigating',
  IDENTIFIED: 'Identified',
  MONITORING: 'Monitoring',
  RESOLVED: 'Resolved',
}
const LEVEL_OF_STATUS: Record<ComponentStatus, string> = {
  OPERATIONAL: 'ok',
  UNDER_MAINTENANCE: 'maintenance',
  DEGRADED_PERFORMANCE: 'minor',
  PARTIAL_OUTAGE: 'partial',
  MAJOR_OUTAGE: 'major',
}

// One letter each: a page shows 90 bars per service, so their markup is most of its bytes.
const BAR_CLASS: Record<BarLevel, string> = {
  ok: 'o',
  minor: 'm',
  partial: 'p',
  major: 'x',
  maintenance: 'w',
  none: 'n',
}
const dayFormat = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', month: 'short', day: 'numeric' })

const dateFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
})
export const formatDate = (iso: string) => `${dateFormat.format(new Date(iso))} UTC`
const time = (iso: string) => `<time datetime="${iso}">${formatDate(iso)}</time>`

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`
  return `${Math.floor(hours / 24)} days ${hours % 24} h`
}

const CSS_VAR: Record<string, string> = {
  bodyBackgroundColor: '--body-bg',
  headerBackgroundColor: '--header-bg',
  headerFontColor: '--header-fg',
  titleFontColor: '--title-fg',
  bodyFontColor: '--fg',
  bodyFontColorMuted: '--muted',
  navigationFontColor: '--nav-fg',
  linkFontColor: '--link',
  cardBackgroundColor: '--card-bg',
  borderColor: '--border',
  primaryButtonBackgroundColor: '--button-bg',
  primaryButtonFontColor: '--button-fg',
}
const vars = (palette: ThemePalette) =>
  THEME_COLOR_NAMES.map((name) => `${CSS_VAR[name]}:${palette[name]};`).join('')

const BASE_CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--body-bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}
.wrap{max-width:860px;margin:0 auto;padding:0 20px}
.skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;background:var(--card-bg);padding:8px;z-index:1}
.top{background:var(--header-bg);color:var(--header-fg);border-bottom:1px solid var(--border)}
.top .wrap{display:flex;align-items:center;gap:16px;min-height:72px}
.top img{max-height:40px;max-width:200px;display:block}
.top h1{font-size:1.25rem;margin:0;color:var(--header-fg)}
main.wrap{padding-top:24px;padding-bottom:8px}
h2{color:var(--title-fg);font-size:1.15rem;margin:32px 0 12px}
h3{color:var(--title-fg);font-size:1rem;margin:0}
.muted{color:var(--muted)}
.card,.overall,.incident{background:var(--card-bg);border:1px solid var(--border);border-radius:8px}
.overall{display:flex;align-items:center;justify-content:space-between;flex-wrap:wrap;gap:8px;padding:16px 20px;border-left-width:6px}
.overall h2{margin:0;font-size:1.3rem;display:flex;align-items:center;gap:10px}
.overall p{margin:0}
.card{margin-bottom:20px}
.card>h2{margin:0;padding:14px 20px;border-bottom:1px solid var(--border);font-size:1.05rem}
.services{list-style:none;margin:0;padding:0}
.service{padding:14px 20px;border-top:1px solid var(--border)}
.service:first-child{border-top:0}
.service-head{display:flex;justify-content:space-between;align-items:baseline;gap:12px;flex-wrap:wrap}
.service p{margin:4px 0 0;font-size:.9rem}
.status{display:inline-flex;align-items:center;gap:6px;font-size:.9rem;font-weight:600}
.dot{width:12px;height:12px;border-radius:50%;display:inline-block;flex:none;background:var(--level)}
.bars{display:flex;gap:2px;margin-top:10px;height:32px}
.bars i{flex:1;border-radius:2px;background:var(--level)}
.bars .o{--level:#1f9d55}.bars .m{--level:#d4a017}.bars .p{--level:#e8710a}.bars .x{--level:#d93025}
.bars .w{--level:#3b82f6}.bars .n{--level:var(--border)}
.legend{display:flex;justify-content:space-between;font-size:.8rem;margin-top:4px}
.lv-ok{--level:#1f9d55}.lv-minor{--level:#d4a017}.lv-partial{--level:#e8710a}.lv-major{--level:#d93025}
.lv-maintenance{--level:#3b82f6}.lv-none{--level:var(--border)}
.overall.lv-ok{border-left-color:#1f9d55}.overall.lv-minor{border-left-color:#d4a017}
.overall.lv-partial{border-left-color:#e8710a}.overall.lv-major{border-left-color:#d93025}
.overall.lv-maintenance{border-left-color:#3b82f6}
.incident{padding:16px 20px;margin-bottom:16px}
.incident>p{margin:4px 0 0;font-size:.9rem}
.updates{list-style:none;margin:12px 0 0;padding:0 0 0 14px;border-left:2px solid var(--border)}
.updates li{margin:0 0 12px}
.updates p{margin:0}
.desc{white-space:pre-line;overflow-wrap:anywhere}
.empty{padding:16px 20px}
form.subscribe{background:var(--card-bg);border:1px solid var(--border);border-radius:8px;padding:16px 20px;margin-top:32px}
form.subscribe label{display:block;font-weight:600;color:var(--title-fg);margin-bottom:8px}
.row{display:flex;gap:8px;flex-wrap:wrap}
input[type=email]{flex:1;min-width:200px;padding:8px 10px;font:inherit;color:var(--fg);background:var(--body-bg);border:1px solid var(--border);border-radius:6px}
button{padding:8px 16px;font:inherit;font-weight:600;color:var(--button-fg);background:var(--button-bg);border:0;border-radius:6px;cursor:pointer}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--link);outline-offset:2px}
footer.wrap{padding-top:24px;padding-bottom:40px;font-size:.85rem;color:var(--muted)}
footer a{color:var(--nav-fg)}
@media (prefers-reduced-motion:reduce){*{transition:none!important}}
`

function themeCss(view: PageView): string {
  const { light, dark } = view.themeColors
  if (view.defaultTheme === 'LIGHT') return `:root{color-scheme:light;${vars(light)}}`
  if (view.defaultTheme === 'DARK') return `:root{color-scheme:dark;${vars(dark)}}`
  return `:root{color-scheme:light dark;${vars(light)}}@media (prefers-color-scheme:dark){:root{${vars(dark)}}}`
}

function logo(view: PageView): string {
  const alt = `${escapeHtml(view.name)} logo`
  let image = ''
  if (view.defaultTheme === 'DARK') {
    const src = view.logoDark ?? view.logo
    if (src) image = `<img src="${escapeHtml(src)}" alt="${alt}">`
  } else if (view.logo) {
    const dark =
      view.defaultTheme === 'AUTO' && view.logoDark
        ? `<source srcset="${escapeHtml(view.logoDark)}" media="(prefers-color-scheme: dark)">`
        : ''
    image = `<picture>${dark}<img src="${escapeHtml(view.logo)}" alt="${alt}"></picture>`
  }
  if (image && view.redirectTo) return `<a href="${escapeHtml(view.redirectTo)}">${image}</a>`
  return image
}

function serviceItem(service: ServiceView): string {
  const level = LEVEL_OF_STATUS[service.status]
  const uptime = service.uptime === null ? 'No data yet' : `${service.uptime}% uptime`
  const label = `${service.name}: ${service.uptime === null ? 'no uptime data yet' : `${service.uptime}% uptime`} over the last ${service.days.length} days`
  const bars = service.days
    .map((day) => {
      const uptime = day.uptime === null ? 'no data' : `${day.uptime}% uptime`
      const date = dayFormat.format(new Date(`${day.date}T00:00:00Z`))
      const tip = `${date}: ${uptime}${day.declared ? `, ${STATUS_TEXT[day.declared].toLowerCase()}` : ''}`
      return `<i class="${BAR_CLASS[day.level]}" title="${tip}"></i>`
    })
    .join('')
  return `<li class="service"><div class="service-head"><h3>${escapeHtml(service.name)}</h3><span class="status lv-${level}"><span class="dot" aria-hidden="true"></span>${STATUS_TEXT[service.status]}</span></div>${
    service.description ? `<p class="muted">${escapeHtml(service.description)}</p>` : ''
  }<div class="bars" role="img" aria-label="${escapeHtml(label)}">${bars}</div><div class="legend muted" aria-hidden="true"><span>${service.days.length} days ago</span><span>${uptime}</span><span>Today</span></div></li>`
}

function incidentArticle(incident: IncidentView): string {
  const facts = [
    `<strong>${INCIDENT_STATUS_TEXT[incident.status]}</strong>`,
    `started ${time(incident.startedAt)}`,
  ]
  if (incident.duration !== null) facts.push(`lasted ${formatDuration(incident.duration)}`)
  const affected = [...new Set(incident.components.map((c) => c.name))]
  if (affected.length > 0) facts.push(`affects ${affected.map(escapeHtml).join(', ')}`)
  const updates = incident.updates
    .map(
      (u) =>
        `<li><p><strong>${INCIDENT_STATUS_TEXT[u.status]}</strong> <span class="muted">${time(u.publishedAt)}</span></p><p class="desc">${escapeHtml(u.description)}</p></li>`,
    )
    .join('')
  return `<article class="incident" id="incident-${incident.id}" aria-labelledby="incident-${incident.id}-title"><h3 id="incident-${incident.id}-title">${escapeHtml(incident.name)}</h3><p class="muted">${facts.join(' · ')}</p><ol class="updates" aria-label="Updates, newest first">${updates}</ol></article>`
}

export interface HtmlPage {
  html: string
  /** Content-Security-Policy allowing exactly the page's own inline style. */
  csp: string
}

/** The whole public page: server-side HTML, no script. `base` is the page's own path ('' on a custom domain). */
export function renderStatusPage(view: PageView, base: string): HtmlPage {
  const css = themeCss(view) + BASE_CSS
  const styleHash = createHash('sha256').update(css).digest('base64')
  const overallLevel = LEVEL_OF_STATUS[view.overall]
  const ongoing =
    view.ongoing.length > 0
      ? `<section aria-labelledby="ongoing-title"><h2 id="ongoing-title">Ongoing incidents</h2>${view.ongoing.map(incidentArticle).join('')}</section>`
      : ''
  const cards = view.cards
    .map(
      (card, i) =>
        `<section class="card" aria-labelledby="card-${i}"><h2 id="card-${i}">${escapeHtml(card.name)}</h2>${
          card.services.length > 0
            ? `<ul class="services">${card.services.map(serviceItem).join('')}</ul>`
            : '<p class="empty muted">No services.</p>'
        }</section>`,
    )
    .join('')
  const past = `<section aria-labelledby="past-title"><h2 id="past-title">Past incidents</h2>${
    view.past.length > 0
      ? view.past.map(incidentArticle).join('')
      : '<p class="muted">No incidents in the last 90 days.</p>'
  }</section>`
  const favicon = view.favicon ? escapeHtml(view.favicon) : 'data:,'
  const name = escapeHtml(view.name)
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${name}</title>
<meta name="description" content="${escapeHtml(view.description ?? `Current status and incident history of ${view.name}`)}">
<link rel="icon" href="${favicon}">
<link rel="alternate" type="application/rss+xml" title="${name} incidents (RSS)" href="${base}/feed.rss">
<link rel="alternate" type="application/atom+xml" title="${name} incidents (Atom)" href="${base}/feed.atom">
<style>${css}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="wrap">${logo(view)}<h1>${name}</h1></div></header>
<main id="main" class="wrap">${view.description ? `<p>${escapeHtml(view.description)}</p>` : ''}
<section class="overall lv-${overallLevel}" aria-labelledby="overall-title"><h2 id="overall-title"><span class="dot" aria-hidden="true"></span>${OVERALL_TEXT[view.overall]}</h2><p class="muted">Updated ${time(view.generatedAt)}</p></section>
${ongoing}${cards}${past}
<form class="subscribe" method="post" action="${base}/subscribe"><label for="subscribe-email">Get incident updates by email</label><div class="row"><input id="subscribe-email" type="email" name="email" required autocomplete="email" placeholder="you@example.com"><button type="submit">Subscribe</button></div></form>
</main>
<footer class="wrap"><a href="${base}/feed.rss">RSS</a> · <a href="${base}/feed.atom">Atom</a> · <a href="${base}/summary.json">JSON</a>${view.whiteLabel ? '' : ' · Powered by svc'}</footer>
</body></html>`
  return {
    html,
    csp: `default-src 'none'; style-src 'sha256-${styleHash}'; img-src https: http: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  }
}

/** A small page for answers to subscribers and refusals, in the default palette. */
export function renderMessagePage(
  title: string,
  message: string,
  link?: { href: string; text: string },
  form?: MessageForm,
): HtmlPage {
  const css = `:root{color-scheme:light dark;--body-bg:#F7F9FB;--fg:#2E3A45;--link:#0059C2;--title-fg:#151A1E}@media (prefers-color-scheme:dark){:root{--body-bg:#0F1419;--fg:#D5DDE5;--link:#7DB7FF;--title-fg:#F3F6F9}}body{margin:0;background:var(--body-bg);color:var(--fg);font:16px/1.5 system-ui,sans-serif}main{max-width:560px;margin:64px auto;padding:0 20px}h1{color:var(--title-fg);font-size:1.4rem}a{color:var(--link)}`
  const styleHash = createHash('sha256').update(css).digest('base64')
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><style>${css}</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${form ? formHtml(form) : ''}${link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : ''}</main></body></html>`
  return {
    html,
    csp: `default-src 'none'; style-src 'sha256-${styleHash}'; img-src data:;${form ? " form-action 'self';" : ''} base-uri 'none'; frame-ancestors 'none'`,
  }
}

/** A button that POSTs `fields` to `action` (same origin). */
export interface MessageForm {
  action: string
  button: string
  fields?: Record<string, string>
}

function formHtml({ action, button, fields = {} }: MessageForm): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('')
  return `<form method="post" action="${escapeHtml(action)}">${inputs}<button type="submit">${escapeHtml(button)}</button></form>`
}
