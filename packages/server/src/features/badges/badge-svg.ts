/** Shields-style status badges as SVG, drawn here (no network, no font files). */

export const BADGE_STYLES = ['flat', 'plastic', 'flat-square', 'for-the-badge', 'social'] as const
export const BADGE_THEMES = ['light', 'dark', 'default'] as const
export type BadgeStyle = (typeof BADGE_STYLES)[number]
export type BadgeTheme = (typeof BADGE_THEMES)[number]

export type BadgeStatus = 'passing' | 'degraded' | 'failing' | 'no data'

const STATUS_COLORS: Record<BadgeStatus, string> = {
  passing: '#44cc11',
  degraded: '#dfb317',
  failing: '#e05d44',
  'no data': '#9f9f9f',
}
const INFO_COLOR = '#007ec6'
const LABEL_COLORS: Record<BadgeTheme, { fill: string; text: string }> = {
  default: { fill: '#555555', text: '#ffffff' },
  dark: { fill: '#24292e', text: '#ffffff' },
  light: { fill: '#f2f2f2', text: '#333333' },
}
const MAX_LABEL_CHARS = 60

export interface Badge {
  label: string
  status: BadgeStatus
  /** Extra segments after the status, e.g. `99.5% uptime`, `212 ms`. */
  details: string[]
  style: BadgeStyle
  theme: BadgeTheme
}

interface Segment {
  text: string
  fill: string
  textFill: string
}

export function badgeSvg(badge: Badge): string {
  const big = badge.style === 'for-the-badge'
  const label =
    badge.label.length > MAX_LABEL_CHARS ? `${badge.label.slice(0, MAX_LABEL_CHARS - 1)}…` : badge.label
  const theme = LABEL_COLORS[badge.theme]
  const segments: Segment[] = [
    { text: label, fill: theme.fill, textFill: theme.text },
    { text: badge.status, fill: STATUS_COLORS[badge.status], textFill: '#ffffff' },
    ...badge.details.map((text) => ({ text, fill: INFO_COLOR, textFill: '#ffffff' })),
  ].map((s) => (big ? { ...s, text: s.text.toUpperCase() } : s))
  if (badge.style === 'social') {
    for (const s of segments) Object.assign(s, { fill: '#fcfcfc', textFill: '#333333' })
  }
  const height = big ? 28 : 20
  const charWidth = big ? 7.5 : 6.5
  const padding = big ? 12 : 6
  let x = 0
  const laid = segments.map((s) => {
    const width = Math.round(s.text.length * charWidth + 2 * padding)
    const at = x
    x += width
    return { ...s, x: at, width }
  })
  const radius = { flat: 3, plastic: 4, 'flat-square': 0, 'for-the-badge': 0, social: 3 }[badge.style]
  const title = escapeXml(segments.map((s) => s.text).join(': '))
  const fontSize = big ? 10 : 11
  const weight = big || badge.style === 'social' ? ' font-weight="bold"' : ''
  const rects = laid.map((s) => `<rect x="${s.x}" width="${s.width}" height="${height}" fill="${s.fill}"/>`)
  const texts = laid.map(
    (s) =>
      `<text x="${s.x + s.width / 2}" y="${height / 2 + fontSize / 2 - 1}" fill="${s.textFill}"${weight}>${escapeXml(s.text)}</text>`,
  )
  const gloss =
    badge.style === 'plastic'
      ? `<linearGradient id="gloss" x2="0" y2="100%"><stop offset="0" stop-color="#fff" stop-opacity=".7"/><stop offset="1" stop-opacity=".1"/></linearGradient><rect width="${x}" height="${height}" fill="url(#gloss)" opacity=".3"/>`
      : ''
  const border =
    badge.style === 'social'
      ? `<rect x=".5" y=".5" width="${x - 1}" height="${height - 1}" rx="${radius}" fill="none" stroke="#d5d5d5"/>`
      : ''
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${x}" height="${height}" role="img" aria-label="${title}">`,
    `<title>${title}</title>`,
    `<clipPath id="r"><rect width="${x}" height="${height}" rx="${radius}" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#r)">${rects.join('')}${gloss}</g>`,
    border,
    `<g text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="${fontSize}">${texts.join('')}</g>`,
    '</svg>',
  ].join('')
}

function escapeXml(text: string): string {
  // XML 1.0 allows no control characters but tab, newline and return.
  const printable = [...text].filter((c) => c >= ' ' || c === '\t' || c === '\n' || c === '\r').join('')
  return printable.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
  )
}
