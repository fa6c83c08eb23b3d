// The words of the alert template language that its parts share.

/**
 * Where rendered text lands: a JSON string, a URL, a form body, HTML or XML, or plain text.
 * Exported because the tests render in each context.
 */
export const ESCAPE_CONTEXTS = ['json', 'url', 'form', 'html', 'text'] as const
export type EscapeContext = (typeof ESCAPE_CONTEXTS)[number]

export type TemplateValue = string | number | boolean | null | undefined | readonly TemplateValue[]
export type TemplateVariables = Record<string, TemplateValue>

export interface RenderOptions {
  now: Date
  /** The `{{REGION}}` helper's value. */
  region: string
  random?: () => number
  uuid?: () => string
}
