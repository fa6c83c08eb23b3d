/**
 * Enums of status pages and incidents (the spec's "Status page v3 incident" and "Component impact"), and
 * a page's theme colours. No imports: the dashboard imports this module alone (`@svc/core/status-pages`).
 */

export const INCIDENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number]

/** Best first: a component's worst current status wins wherever several apply. */
export const COMPONENT_STATUSES = [
  'OPERATIONAL',
  'UNDER_MAINTENANCE',
  'DEGRADED_PERFORMANCE',
  'PARTIAL_OUTAGE',
  'MAJOR_OUTAGE',
] as const
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number]

export function worseComponentStatus(a: ComponentStatus, b: ComponentStatus): ComponentStatus {
  return COMPONENT_STATUSES.indexOf(a) >= COMPONENT_STATUSES.indexOf(b) ? a : b
}

export const STATUS_PAGE_THEMES = ['LIGHT', 'DARK', 'AUTO'] as const
export type StatusPageTheme = (typeof STATUS_PAGE_THEMES)[number]

/** The 12 colours of each of a page's light and dark themes, in the spec's order. */
export const THEME_COLOR_NAMES = [
  'bodyBackgroundColor',
  'headerBackgroundColor',
  'headerFontColor',
  'titleFontColor',
  'bodyFontColor',
  'bodyFontColorMuted',
  'navigationFontColor',
  'linkFontColor',
  'cardBackgroundColor',
  'borderColor',
  'primaryButtonBackgroundColor',
  'primaryButtonFontColor',
] as const
export type ThemeColorName = (typeof THEME_COLOR_NAMES)[number]

/**
 * A CSS colour a page can inline safely: hex, a named colour, or rgb()/hsl() with plain arguments. The
 * API validates with it, and the dashboard's colour fields check as you type.
 */
export const THEME_COLOR_PATTERN =
  '^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30}|(rgb|rgba|hsl|hsla)\\([0-9., %/]{1,60}\\))$'
export type ThemePalette = Record<ThemeColorName, string>
export interface ThemeColors {
  light: ThemePalette
  dark: ThemePalette
}

/** Used where a page sets no colours; both palettes meet WCAG AA contrast for text on their backgrounds. */
export const DEFAULT_THEME_COLORS: ThemeColors = {
  light: {
    bodyBackgroundColor: '#F7F9FB',
    headerBackgroundColor: '#FFFFFF',
    headerFontColor: '#151A1E',
    titleFontColor: '#151A1E',
    bodyFontColor: '#2E3A45',
    bodyFontColorMuted: '#56687A',
    navigationFontColor: '#151A1E',
    linkFontColor: '#0059C2',
    cardBackgroundColor: '#FFFFFF',
    borderColor: '#D9E1E8',
    primaryButtonBackgroundColor: '#0059C2',
    primaryButtonFontColor: '#FFFFFF',
  },
  dark: {
    bodyBackgroundColor: '#0F1419',
    headerBackgroundColor: '#161D24',
    headerFontColor: '#F3F6F9',
    titleFontColor: '#F3F6F9',
    bodyFontColor: '#D5DDE5',
    bodyFontColorMuted: '#A3B1BF',
    navigationFontColor: '#F3F6F9',
    linkFontColor: '#7DB7FF',
    cardBackgroundColor: '#161D24',
    borderColor: '#2C3742',
    primaryButtonBackgroundColor: '#7DB7FF',
    primaryButtonFontColor: '#0F1419',
  },
}
