// The Handlebars instance alert templates render with: the escape helpers (with their output budgets)
// and the helpers users call (eq, contains, REGION, $UUID, $RANDOM_NUMBER, moment).
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
import { relativeDate } from './relative-date.ts'
import type { EscapeContext, RenderOptions } from './template-types.ts'

// The moment tokens users write: advancedFormat's week and zone tokens need the week, ISO-week,
// week-year and zone plugins (without them `w`, `W`, `gggg`, `z` threw), localizedFormat gives `L`...`LTS`.
for (const plugin of [utc, timezone, weekOfYear, isoWeek, weekYear, advancedFormat, localizedFormat])
  dayjs.extend(plugin)

export const ESCAPE_HELPER = '__svcEscape'
/**
 * Escapes a placeholder that is part of a URL's structure (it opens the template, so it is the base URL,
 * or it lands in the host part): in a URL it goes in as it is, elsewhere it is escaped like any other.
 */
export const BASE_ESCAPE_HELPER = '__svcEscapeBase'
/** `{{{X}}}`: inserted as it is, counted like the escaped ones. */
export const RAW_HELPER = '__svcRaw'
/** Helpers called without arguments, as `{{REGION}}`: they stay helper calls inside the escape. */
export const VALUE_HELPERS = new Set(['REGION', '$UUID', '$RANDOM_NUMBER', 'moment'])

/** Helpers that read their arguments by position: given more or fewer, Handlebars fails at render. */
export const ARGUMENTS: Record<string, number> = {
  lookup: 2,
  eq: 2,
  contains: 2,
  if: 1,
  unless: 1,
  each: 1,
  with: 1,
}
export const KNOWN_HELPERS = new Set([...VALUE_HELPERS, ...Object.keys(ARGUMENTS)])
/** Called inline they have no block to render: Handlebars fails at render with "options.fn is not a function". */
export const BLOCK_HELPERS = new Set(['eq', 'contains', 'if', 'unless', 'each', 'with'])
/** Handlebars' own helpers, which the runtime calls itself: never named by a template. */
export const INTERNAL_HELPERS = new Set(['helperMissing', 'blockHelperMissing', 'log'])
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

export const hb = Handlebars.create()
type HelperOptions = Handlebars.HelperOptions & { data: { svc: RenderState } }
export interface RenderState {
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
export const EACH_BUDGET = 1 << 20
/**
 * A 64 KiB template of `{{V}}` over a 10 KB variable is 130 MB: seconds of a frozen node and half a
 * GB per attempt. No receiver wants a body near this.
 */
export const INSERT_BUDGET = 1 << 20
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
