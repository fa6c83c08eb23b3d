/** Enums of status pages and incidents (the spec's "Status page v3 incident" and "Component impact"). */

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
