import Handlebars from 'handlebars'
import { EscapeRewriter, hostPlaceholders } from './escape-rewriter.ts'
import { EACH_BUDGET, hb, INSERT_BUDGET, type RenderState } from './template-helpers.ts'
import type { EscapeContext, RenderOptions, TemplateVariables } from './template-types.ts'

export { TEMPLATE_HELPERS, textOf } from './template-helpers.ts'
export * from './template-types.ts'

/**
 * The alert template language: Handlebars where `{{X}}` is encoded for where the text lands and
 * `{{{X}}}` is inserted raw, as is a `{{X}}` that is part of a URL's structure: one that opens a URL (its
 * base URL, from a variable) or lands in its host part (`https://{{HOST_WITH_PORT}}/...`). Each
 * escaped mustache is rewritten at compile time into a raw call of an escape helper, so one compiled
 * template renders into any context.
 */

export class TemplateSyntaxError extends Error {
  readonly line: number
  readonly column: number
  constructor(message: string, line: number, column: number) {
    super(`${message} (line ${line}, column ${column})`)
    this.line = line
    this.column = column
  }
}

export interface AlertTemplate {
  render(variables: TemplateVariables, context: EscapeContext, options: RenderOptions): string
  /** Every top-level name the template reads (variables and helpers), for warnings at save. */
  names: ReadonlySet<string>
}

/** Compiles `source` or throws a TemplateSyntaxError with the 1-based line and column. */
export function compileAlertTemplate(source: string): AlertTemplate {
  let ast: hbs.AST.Program
  const rewriter = new EscapeRewriter()
  try {
    ast = Handlebars.parse(source)
    const opening = ast.body.find(
      (s) => s.type !== 'ContentStatement' || (s as hbs.AST.ContentStatement).value.trim(),
    )
    if (opening?.type === 'MustacheStatement') rewriter.structural.add(opening as hbs.AST.MustacheStatement)
    for (const node of hostPlaceholders(ast)) rewriter.structural.add(node)
    rewriter.accept(ast)
  } catch (error) {
    throw syntaxErrorOf(error)
  }
  const template = hb.compile(ast, { strict: false, preventIndent: true })
  return {
    names: rewriter.names,
    render(variables, context, options) {
      const state: RenderState = { context, options, budget: EACH_BUDGET, inserts: INSERT_BUDGET }
      return template(variables, {
        data: { svc: state },
        allowProtoPropertiesByDefault: false,
        allowProtoMethodsByDefault: false,
      })
    },
  }
}

function syntaxErrorOf(error: unknown): TemplateSyntaxError {
  const message = error instanceof Error ? error.message : String(error)
  const located = error as { lineNumber?: number; column?: number }
  if (typeof located.lineNumber === 'number') {
    return new TemplateSyntaxError(
      message.replace(/ - \d+:\d+$/, ''),
      located.lineNumber,
      (located.column ?? 0) + 1,
    )
  }
  // The parser keeps the failing token's position on its lexer; the message holds an excerpt we drop.
  const where = (
    Handlebars as unknown as { Parser: { lexer?: { yylloc?: { first_line: number; first_column: number } } } }
  ).Parser.lexer?.yylloc
  const firstLine = message.split('\n')[0] ?? message
  const expecting = message.match(/\n(Expecting [^\n]*)$/)?.[1]
  // `{"ms": {{RESPONSE_TIME}}}`: Handlebars reads the last three braces as one token.
  if (expecting?.endsWith("got 'CLOSE_UNESCAPED'")) {
    return new TemplateSyntaxError(
      '`}}}` closes a {{{raw}}} placeholder that was opened with `{{`: to close a JSON object right after a ' +
        'placeholder, put a space between (`{{NAME}} }`)',
      where?.first_line ?? 1,
      (where?.first_column ?? 0) + 1,
    )
  }
  const summary = [firstLine.replace(/ on line \d+[:.]?$/, '').replace(/ on line \d+\./, '.'), expecting]
    .filter(Boolean)
    .join(': ')
  return new TemplateSyntaxError(summary, where?.first_line ?? 1, (where?.first_column ?? 0) + 1)
}

/** The escape context of a request body with this Content-Type (API.md "Alert channel bodies"). */
export function bodyContextOf(contentType: string | undefined): EscapeContext {
  const type = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? ''
  if (type === 'application/x-www-form-urlencoded') return 'form'
  if (type === 'application/json' || type.endsWith('+json')) return 'json'
  if (
    ['text/html', 'application/xhtml+xml', 'text/xml', 'application/xml'].includes(type) ||
    type.endsWith('+xml')
  )
    return 'html'
  return 'text'
}

const compiled = new Map<string, AlertTemplate>()
const CACHE_SIZE = 500

/** compileAlertTemplate with a small cache: channels render the same few templates again and again. */
export function cachedAlertTemplate(source: string): AlertTemplate {
  const hit = compiled.get(source)
  if (hit) return hit
  const template = compileAlertTemplate(source)
  if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value as string)
  compiled.set(source, template)
  return template
}
