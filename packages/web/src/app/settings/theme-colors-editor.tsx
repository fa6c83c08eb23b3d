import {
  DEFAULT_THEME_COLORS,
  THEME_COLOR_NAMES,
  THEME_COLOR_PATTERN,
  type ThemeColorName,
  type ThemeColors,
  type ThemePalette,
} from '@svc/core/status-pages'
import { type CSSProperties, useId } from 'react'
import { fieldErrorsFor } from '../api.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { Button, FieldError } from '../ui/ui.tsx'

/**
 * A status page's 12 colours for its light and its dark theme: each a CSS colour typed or picked, checked
 * as typed against the pattern the API validates with, with the API's message beside it after a save,
 * and a preview of both themes. A page without colours of its own starts from the defaults.
 */

interface Bind {
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
}

type Theme = keyof ThemeColors

const LABELS: Record<ThemeColorName, string> = {
  bodyBackgroundColor: 'Page background',
  headerBackgroundColor: 'Header background',
  headerFontColor: 'Header text',
  titleFontColor: 'Titles',
  bodyFontColor: 'Text',
  bodyFontColorMuted: 'Muted text',
  navigationFontColor: 'Navigation',
  linkFontColor: 'Links',
  cardBackgroundColor: 'Card background',
  borderColor: 'Borders',
  primaryButtonBackgroundColor: 'Button background',
  primaryButtonFontColor: 'Button text',
}

const COLOR = new RegExp(THEME_COLOR_PATTERN)
const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i

/** The page's colours, or the defaults when it has none (a new page, or one saved without). */
function colorsOf(draft: Draft): ThemeColors {
  const value = draft.themeColors
  return value && typeof value === 'object' ? (value as ThemeColors) : DEFAULT_THEME_COLORS
}

/** `#abc` as `#aabbcc`: the colour picker takes only the long form. */
function longHex(value: string): string {
  return value.length === 4 ? `#${[...value.slice(1)].map((digit) => digit + digit).join('')}` : value
}

export function ThemeColorsEditor(props: { bind: Bind }) {
  const { bind } = props
  const colors = colorsOf(bind.draft)
  const set = (theme: Theme, name: ThemeColorName, value: string) =>
    bind.onChange({ ...bind.draft, themeColors: { ...colors, [theme]: { ...colors[theme], [name]: value } } })
  return (
    <fieldset className="form-wide editor-list theme-colors">
      <legend>Theme colours</legend>
      <p className="hint">
        A hex colour (#0059C2), a colour name, or rgb() / hsl(). The public page uses the light or the dark
        set by its theme above and the visitor&rsquo;s system.
      </p>
      <div className="theme-colors-grid">
        {(['light', 'dark'] as const).map((theme) => (
          <div key={theme} className="theme-colors-column">
            <h3>{theme === 'light' ? 'Light theme' : 'Dark theme'}</h3>
            {THEME_COLOR_NAMES.map((name) => (
              <ColorInput
                key={name}
                theme={theme}
                name={name}
                value={colors[theme][name]}
                error={bind.error}
                onChange={(value) => set(theme, name, value)}
              />
            ))}
            <ThemePreview theme={theme} palette={colors[theme]} />
          </div>
        ))}
      </div>
      <Button
        className="btn-small"
        onClick={() => bind.onChange({ ...bind.draft, themeColors: DEFAULT_THEME_COLORS })}
      >
        Reset to the default colours
      </Button>
    </fieldset>
  )
}

function ColorInput(props: {
  theme: Theme
  name: ThemeColorName
  value: string
  error: unknown
  onChange(value: string): void
}) {
  const id = useId()
  const label = `${props.theme === 'light' ? 'Light' : 'Dark'} ${LABELS[props.name].toLowerCase()}`
  const path = `themeColors.${props.theme}.${props.name}`
  const valid = COLOR.test(props.value)
  // A value that fails the check as typed says so at once, before any save.
  const errors = valid
    ? fieldErrorsFor(props.error, path)
    : ['not a colour: use #RRGGBB, a colour name, rgb() or hsl()']
  return (
    <div className="theme-color editor-row">
      <label htmlFor={id} className="editor-label">
        {LABELS[props.name]}
      </label>
      {HEX.test(props.value) ? (
        <input
          type="color"
          className="theme-swatch"
          aria-label={`${label}: pick`}
          value={longHex(props.value)}
          onChange={(event) => props.onChange(event.target.value.toUpperCase())}
        />
      ) : (
        <span className="theme-swatch" style={{ background: valid ? props.value : 'transparent' }} />
      )}
      <input
        id={id}
        aria-label={label}
        value={props.value}
        spellCheck={false}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length ? `${id}-error` : undefined}
        onChange={(event) => props.onChange(event.target.value.trim())}
      />
      <FieldError id={`${id}-error`} name={path} errors={errors} />
    </div>
  )
}

/** A small public page drawn in one theme's colours: header, title, a card with text, a link and a button. */
function ThemePreview(props: { theme: Theme; palette: ThemePalette }) {
  const color = (name: ThemeColorName) => (COLOR.test(props.palette[name]) ? props.palette[name] : undefined)
  const page: CSSProperties = { background: color('bodyBackgroundColor'), color: color('bodyFontColor') }
  return (
    <figure className="theme-preview" style={page}>
      <figcaption className="sr-only">Preview of the {props.theme} theme</figcaption>
      <div
        className="theme-preview-header"
        style={{ background: color('headerBackgroundColor'), color: color('headerFontColor') }}
      >
        <strong>Acme status</strong>
        <span style={{ color: color('navigationFontColor') }}>History</span>
      </div>
      <div style={{ padding: '10px 12px' }}>
        <div style={{ color: color('titleFontColor'), fontWeight: 600 }}>All systems operational</div>
        <div
          className="theme-preview-card"
          style={{ background: color('cardBackgroundColor'), borderColor: color('borderColor') }}
        >
          <div>Checkout</div>
          <div style={{ color: color('bodyFontColorMuted') }}>Operational for 30 days</div>
          <span style={{ color: color('linkFontColor'), textDecoration: 'underline' }}>Past incidents</span>
        </div>
        <span
          className="theme-preview-button"
          style={{
            background: color('primaryButtonBackgroundColor'),
            color: color('primaryButtonFontColor'),
          }}
        >
          Subscribe
        </span>
      </div>
    </figure>
  )
}
