import { randomInt, randomUUID } from 'node:crypto'
import dayjs from 'dayjs'
import advancedFormat from 'dayjs/plugin/advancedFormat.js'
import isoWeek from 'dayjs/plugin/isoWeek.js'
import localizedFormat from 'dayjs/plugin/localizedFormat.js'
import timezone from 'dayjs/plugin/timezone.js'
import utc from 'dayjs/plugin/utc.js'
import weekOfYear from 'dayjs/plugin/weekOfYear.js'
import weekYear from 'dayjs/plugin/weekYear.js'
import Handlebars from 'handlebars'

// The moment tokens users write: advancedFormat's week and zone tokens need the week, ISO-week,
// week-year and zone plugins (without them `w`, `W`, `gggg`, `z` threw), localizedFormat gives `L`...`LTS`.
for (const plugin of [utc, timezone, weekOfYear, isoWeek, weekYear, advancedFormat, localizedFormat])
  dayjs.extend(plugin)

/**
 * The alert template language: Handlebars where `{{X}}` is encoded for where the text lands and
 * `{{{X}}}` is inserted raw, as is a `{{X}}` that is part of a URL's structure: one that opens a URL (its
 * base URL, from a variable) or lands in its host part (`https://{{HOST_WITH_PORT}}/...`). Each
 * escaped mustache is rewritten at compile time into a raw call of an escape helper, so one compiled
 * template renders into any context.
 */

/** Where rendered text lands: a JSON string, a URL, a form body, HTML or XML, or plain text. */
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

const ESCAPE_HELPER = '__svcEscape'
/**
 * Escapes a placeholder that is part of a URL's structure (it opens the template, so it is the base URL,
 * or it lands in the host part): in a URL it goes in as it is, elsewhere it is escaped like any other.
 */
const BASE_ESCAPE_HELPER = '__svcEscapeBase'
/** `{{{X}}}`: inserted as it is, counted like the escaped ones. */
const RAW_HELPER = '__svcRaw'
/** Helpers called without arguments, as `{{REGION}}`: they stay helper calls inside the escape. */
const VALUE_HELPERS = new Set(['REGION', '$UUID', '$RANDOM_NUMBER', 'moment'])

/** Helpers that read their arguments by position: given more or fewer, Handlebars fails at render. */
const ARGUMENTS: Record<string, number> = {
  lookup: 2,
  eq: 2,
  contains: 2,
  if: 1,
  unless: 1,
  each: 1,
  with: 1,
}
const KNOWN_HELPERS = new Set([...VALUE_HELPERS, ...Object.keys(ARGUMENTS)])
/** Called inline they have no block to render: Handlebars fails at render with "options.fn is not a function". */
const BLOCK_HELPERS = new Set(['eq', 'contains', 'if', 'unless', 'each', 'with'])
/** Handlebars' own helpers, which the runtime calls itself: never named by a template. */
const INTERNAL_HELPERS = new Set(['helperMissing', 'blockHelperMissing', 'log'])
/** The helpers a template may name (they are among `AlertTemplate.names` too). */
export const TEMPLATE_HELPERS: ReadonlySet<string> = KNOWN_HELPERS

const escapers: Record<EscapeContext, (text: string) => string> = {
  json: (text) => JSON.stringify(text).slice(1, -1),
  url: (text) => encodeURIComponent(text),
  form: (text) => new URLSearchParams({ v: text }).toString().slice(2),
  // Handlebars' own escaping, as the hosted product's templates escape everywhere.
  html: (text) => Handlebars.Utils.escapeExpression(text),
  text: (text) => text,
}

/** How a value reads as text: lists comma-joined (as Handlebars prints arrays), nothing as empty. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.map(textOf).join(',')
  return String(value).toWellFormed()
}

const hb = Handlebars.create()
type HelperOptions = Handlebars.HelperOptions & { data: { svc: RenderState } }
interface RenderState {
  context: EscapeContext
  options: RenderOptions
  /** What `#each` may still produce in this render: characters, plus one per iteration. */
  budget: number
  /** Characters the placeholders may still insert in this render. */
  inserts: number
}

/**
 * Nested `#each` over 100 tags multiplies: five levels are 10^10 iterations, which froze the node's
 * event loop (and ran it out of memory) at delivery. Far beyond any real alert body.
 */
const EACH_BUDGET = 1 << 20
/**
 * A 64 KiB template of `{{V}}` over a 10 KB variable is 130 MB: seconds of a frozen node and half a
 * GB per attempt. No receiver wants a body near this.
 */
const INSERT_BUDGET = 1 << 20
const builtinEach = hb.helpers.each as Handlebars.HelperDelegate
hb.registerHelper('each', function (this: unknown, list: unknown, options: HelperOptions) {
  const state = options.data.svc as RenderState
  const fn = options.fn
  const counted = (item: unknown, inner?: Handlebars.RuntimeOptions) => {
    const text = fn(item, inner)
    state.budget -= 1 + text.length
    if (state.budget < 0) throw new Error('the template renders too much: #each may produce at most 1 MiB')
    return text
  }
  return builtinEach.call(this, list, { ...options, fn: counted })
})

function inserted(value: unknown, state: RenderState): string {
  const text = textOf(value)
  state.inserts -= text.length
  if (state.inserts < 0)
    throw new Error('the template renders too much: its placeholders may insert at most 1 MiB')
  return text
}
hb.registerHelper(ESCAPE_HELPER, (value: unknown, options: HelperOptions) => {
  const state = options.data.svc as RenderState
  return escapers[state.context](inserted(value, state))
})
hb.registerHelper(BASE_ESCAPE_HELPER, (value: unknown, options: HelperOptions) => {
  const state = options.data.svc as RenderState
  return state.context === 'url' ? inserted(value, state) : escapers[state.context](inserted(value, state))
})
hb.registerHelper(RAW_HELPER, (value: unknown, options: HelperOptions) => inserted(value, options.data.svc))
hb.registerHelper('eq', function (this: unknown, a: unknown, b: unknown, options: HelperOptions) {
  return textOf(a) === textOf(b) ? options.fn(this) : options.inverse(this)
})
hb.registerHelper('contains', function (this: unknown, list: unknown, item: unknown, options: HelperOptions) {
  const found = Array.isArray(list)
    ? list.some((entry) => textOf(entry) === textOf(item))
    : textOf(list).includes(textOf(item))
  return found ? options.fn(this) : options.inverse(this)
})
hb.registerHelper('REGION', (options: HelperOptions) => options.data.svc.options.region)
hb.registerHelper('$UUID', (options: HelperOptions) => (options.data.svc.options.uuid ?? randomUUID)())
hb.registerHelper('$RANDOM_NUMBER', (options: HelperOptions) => {
  const random = options.data.svc.options.random
  return String(random ? Math.floor(random() * 1001) : randomInt(0, 1001))
})
hb.registerHelper('moment', (...args: unknown[]) => {
  const options = args.pop() as HelperOptions
  const now = dayjs.utc(options.data.svc.options.now)
  if (args.length === 0) return now.format()
  if (args.length === 1) return now.format(textOf(args[0]))
  return relativeDate(now, textOf(args[0])).format(textOf(args[1]))
})

const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'] as const
type Unit = (typeof UNITS)[number]
const unitOf = (word: string): Unit | undefined => UNITS.find((u) => word === u || word === `${u}s`)
const NUMBER_WORDS = 'one two three four five six seven eight nine ten eleven twelve'.split(' ')
const amountOf = (word: string) =>
  word === 'a' || word === 'an' ? 1 : NUMBER_WORDS.indexOf(word) + 1 || Number(word)

/** "2 days ago", "in 3 hours", "last week", "next month", "yesterday", "today", "tomorrow". */
function relativeDate(now: dayjs.Dayjs, text: string): dayjs.Dayjs {
  const words = text.trim().toLowerCase().split(/\s+/)
  const phrase = words.join(' ')
  if (phrase === 'now' || phrase === 'today') return now
  if (phrase === 'yesterday') return now.subtract(1, 'day')
  if (phrase === 'tomorrow') return now.add(1, 'day')
  const [first = '', second = '', third] = words
  if (words.length === 3 && third === 'ago' && unitOf(second) && Number.isFinite(amountOf(first)))
    return now.subtract(amountOf(first), unitOf(second) as Unit)
  if (words.length === 3 && first === 'in' && unitOf(third ?? '') && Number.isFinite(amountOf(second)))
    return now.add(amountOf(second), unitOf(third ?? '') as Unit)
  if (words.length === 2 && (first === 'last' || first === 'next') && unitOf(second))
    return now.add(first === 'last' ? -1 : 1, unitOf(second) as Unit)
  // Anything else is read as a date ("2026-01-31"); an unreadable text means now.
  const parsed = dayjs.utc(text)
  return parsed.isValid() ? parsed : now
}

type Node = hbs.AST.Node & Record<string, unknown>

/**
 * Rewrites `{{X}}` into `{{{__svcEscape X}}}` and `{{{X}}}` into `{{{__svcRaw X}}}` (helpers and calls
 * as a sub-expression).
 */
class EscapeRewriter extends Handlebars.Visitor {
  names = new Set<string>()
  /** Mustaches that are part of a URL's structure: the one that opens the template, those in its host part. */
  structural = new Set<hbs.AST.MustacheStatement>()
  constructor() {
    super()
    ;(this as unknown as { mutating: boolean }).mutating = true
  }
  override PathExpression(path: hbs.AST.PathExpression): void {
    if (!path.data && path.depth === 0 && path.parts[0]) this.names.add(path.parts[0])
  }
  override MustacheStatement(node: hbs.AST.MustacheStatement): hbs.AST.MustacheStatement | undefined {
    this.accept(node.path as unknown as hbs.AST.Node)
    for (const param of node.params) this.accept(param as hbs.AST.Node)
    if (node.hash) this.accept(node.hash as unknown as hbs.AST.Node)
    this.checkHelper(node, 'inline')
    const path = node.path as hbs.AST.PathExpression
    const isCall =
      node.params.length > 0 ||
      (node.hash?.pairs.length ?? 0) > 0 ||
      (path.type === 'PathExpression' && path.parts.length === 1 && VALUE_HELPERS.has(path.original))
    const inner = isCall
      ? ({
          type: 'SubExpression',
          path: node.path,
          params: node.params,
          hash: node.hash,
          loc: node.loc,
        } as Node)
      : node.path
    const helper = !node.escaped ? RAW_HELPER : this.structural.has(node) ? BASE_ESCAPE_HELPER : ESCAPE_HELPER
    return {
      ...node,
      path: {
        type: 'PathExpression',
        data: false,
        depth: 0,
        parts: [helper],
        original: helper,
        loc: node.loc,
      } as hbs.AST.PathExpression,
      params: [inner as hbs.AST.Expression],
      hash: undefined as unknown as hbs.AST.Hash,
      escaped: false,
    }
  }
  override BlockStatement(node: hbs.AST.BlockStatement): undefined {
    this.checkHelper(node, 'block')
    this.accept(node.path as unknown as hbs.AST.Node)
    for (const param of node.params) this.accept(param as hbs.AST.Node)
    if (node.program) this.accept(node.program)
    if (node.inverse) this.accept(node.inverse)
    return undefined
  }
  override SubExpression(node: hbs.AST.SubExpression): undefined {
    this.checkHelper(node, 'inline')
    for (const param of node.params) this.accept(param as hbs.AST.Node)
    return undefined
  }
  /**
   * A call must name a helper we have, as a block when it renders one, with the arguments it takes:
   * caught at save, not at the first alert that reaches that branch of the template.
   */
  private checkHelper(
    node: { path: hbs.AST.PathExpression | hbs.AST.Literal; params: unknown[]; hash?: hbs.AST.Hash },
    form: 'block' | 'inline',
  ) {
    const name = String((node.path as hbs.AST.PathExpression).original)
    const count = node.params.length
    const withArguments = count > 0 || (node.hash?.pairs.length ?? 0) > 0
    // Without arguments `{{name}}` reads a variable (the rewrite makes it an argument); a block calls a helper.
    if (!withArguments && form !== 'block') return
    const fail = (message: string) => {
      throw new Handlebars.Exception(message, node as unknown as hbs.AST.Node)
    }
    if (INTERNAL_HELPERS.has(name)) fail(`unknown helper ${name}`)
    if (!KNOWN_HELPERS.has(name)) {
      if (withArguments) fail(`unknown helper ${name}`)
      return // `{{#NAME}}...{{/NAME}}` over a variable: a section
    }
    if (form !== 'block' && BLOCK_HELPERS.has(name))
      fail(`${name} is a block helper: write {{#${name} ...}}...{{/${name}}}`)
    const takes = ARGUMENTS[name]
    if (takes !== undefined && count !== takes)
      fail(
        `${form === 'block' ? '#' : ''}${name} takes ${takes} argument${takes === 1 ? '' : 's'}, got ${count}`,
      )
  }
  override PartialStatement(node: hbs.AST.PartialStatement): never {
    throw new Handlebars.Exception('partials are not supported', node as unknown as hbs.AST.Node)
  }
  override PartialBlockStatement(node: hbs.AST.PartialBlockStatement): never {
    throw new Handlebars.Exception('partials are not supported', node as unknown as hbs.AST.Node)
  }
  override DecoratorBlock(node: hbs.AST.DecoratorBlock): never {
    throw new Handlebars.Exception('decorators are not supported', node as unknown as hbs.AST.Node)
  }
  override Decorator(node: hbs.AST.Decorator): never {
    throw new Handlebars.Exception('decorators are not supported', node as unknown as hbs.AST.Node)
  }
}

/** The template's text and mustaches in document order (blocks' contents included). */
class SequenceCollector extends Handlebars.Visitor {
  items: (string | hbs.AST.MustacheStatement)[] = []
  override ContentStatement(node: hbs.AST.ContentStatement): void {
    this.items.push(node.value)
  }
  override MustacheStatement(node: hbs.AST.MustacheStatement): void {
    this.items.push(node)
  }
}

/** Stands for a placeholder's output when reading a template's text as a URL. */
const PLACEHOLDER = '\u0000'

/**
 * The mustaches in a URL's host part: after `scheme://`, before the path, query or fragment, and not
 * in the userinfo (an `@` follows them in that part). `https://{{HOST_WITH_PORT}}/hook` needs its `:`
 * as it is; `https://{{USER}}:{{TOKEN}}@host` keeps the credentials encoded.
 */
function hostPlaceholders(ast: hbs.AST.Program): hbs.AST.MustacheStatement[] {
  const collector = new SequenceCollector()
  collector.accept(ast)
  const text = collector.items.map((item) => (typeof item === 'string' ? item : PLACEHOLDER))
  const found: hbs.AST.MustacheStatement[] = []
  collector.items.forEach((item, index) => {
    if (typeof item === 'string') return
    const before = text.slice(0, index).join('')
    if (!/^\s*[^\s/?#]*:\/\/[^/?#]*$/.test(before)) return
    const after = text.slice(index + 1).join('')
    const restOfHost = after.slice(0, after.search(/[/?#]|$/))
    if (!restOfHost.includes('@')) found.push(item)
  })
  return found
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
