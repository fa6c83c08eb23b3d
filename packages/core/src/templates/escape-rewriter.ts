// Compile-time rewriting of a template: each mustache becomes a call of the escape helper for where it
// lands, and every helper call is checked (name, form, arguments) at save.
import Handlebars from 'handlebars'
import {
  ARGUMENTS,
  BASE_ESCAPE_HELPER,
  BLOCK_HELPERS,
  ESCAPE_HELPER,
  INTERNAL_HELPERS,
  KNOWN_HELPERS,
  RAW_HELPER,
  VALUE_HELPERS,
} from './template-helpers.ts'

type Node = hbs.AST.Node & Record<string, unknown>

/**
 * Rewrites `{{X}}` into `{{{__svcEscape X}}}` and `{{{X}}}` into `{{{__svcRaw X}}}` (helpers and calls
 * as a sub-expression).
 */
export class EscapeRewriter extends Handlebars.Visitor {
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
export function hostPlaceholders(ast: hbs.AST.Program): hbs.AST.MustacheStatement[] {
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
