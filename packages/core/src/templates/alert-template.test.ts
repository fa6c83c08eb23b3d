import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { ALERT_EVENT_VARIABLES } from '../alerting.ts'
import {
  bodyContextOf,
  compileAlertTemplate,
  ESCAPE_CONTEXTS,
  type RenderOptions,
  TemplateSyntaxError,
} from './alert-template.ts'

const GOLDEN = join(import.meta.dirname, 'golden')
const options: RenderOptions = {
  now: new Date('2026-03-04T05:06:07.089Z'),
  region: 'eu-west-1',
  random: () => 0.4242,
  uuid: () => '7d0c7b9e-1c1e-4f6e-9a57-5f1d2f0f8e11',
}

/** Values with quotes, backslashes, newlines, tabs, unicode (BMP and astral), URL specials and HTML. */
const variables = {
  CHECK_NAME: 'Shop "checkout" \\ API\nline 2\ttab ✓ 日本 😀 & <b>?a=1#x',
  CHECK_ID: '0bbfc00c-44df-46a7-a4d9-ba38deca8bfd',
  CHECK_TYPE: 'API',
  ALERT_TITLE: "Check 'Shop' has failed",
  ALERT_TYPE: 'ALERT_FAILURE',
  CHECK_RESULT_ID: 'f3b1b0a4-2b4e-4a44-9a55-1c0a5b1d9e10',
  CHECK_ERROR_MESSAGE: 'Expected 200, got 503 "Service Unavailable"',
  RESPONSE_TIME: 1234,
  API_CHECK_RESPONSE_STATUS_CODE: 503,
  API_CHECK_RESPONSE_STATUS_TEXT: 'Service Unavailable',
  RUN_LOCATION: 'eu-west-1',
  RESULT_LINK: 'http://svc.test/v1/check-results/0bbfc00c/f3b1b0a4?a=1&b=2',
  SSL_DAYS_REMAINING: 12,
  SSL_CHECK_DOMAIN: 'shop.example.com',
  STARTED_AT: '2026-03-04T05:06:00.000Z',
  TAGS: ['prod', 'team "a"', 'ünïcode'],
  GROUP_NAME: 'Storefront / EU',
  API_BASE: 'https://hooks.example.com/a b',
}

const TEMPLATE = `{
  "escaped": {
${ALERT_EVENT_VARIABLES.filter((v) => v !== 'TAGS')
  .map((v) => `    "${v}": "{{${v}}}"`)
  .join(',\n')},
    "TAGS": "{{TAGS}}",
    "API_BASE": "{{API_BASE}}"
  },
  "raw": "{{{CHECK_NAME}}} {{{RESULT_LINK}}}",
  "helpers": {
    "REGION": "{{REGION}}",
    "UUID": "{{$UUID}}",
    "RANDOM_NUMBER": {{$RANDOM_NUMBER}},
    "moment": "{{moment "YYYY-MM-DDTHH:mm:ss"}}",
    "momentDefault": "{{moment}}",
    "twoDaysAgo": "{{moment "2 days ago" "YYYY-MM-DD"}}",
    "lastWeek": "{{moment "last week" "X"}}",
    "inThreeHours": "{{moment "in 3 hours" "HH:mm Do MMM"}}",
    "yesterday": "{{moment "yesterday" "dddd"}}",
    "eqTrue": "{{#eq ALERT_TYPE 'ALERT_FAILURE'}}failing{{else}}other{{/eq}}",
    "eqFalse": "{{#eq ALERT_TYPE 'ALERT_RECOVERY'}}recovered{{else}}not recovered{{/eq}}",
    "eqNumber": "{{#eq API_CHECK_RESPONSE_STATUS_CODE 503}}503{{/eq}}",
    "containsTrue": "{{#contains TAGS 'prod'}}production{{else}}elsewhere{{/contains}}",
    "containsFalse": "{{#contains TAGS 'staging'}}staging{{else}}not staging{{/contains}}",
    "containsString": "{{#contains CHECK_NAME 'checkout'}}yes{{/contains}}",
    "each": [{{#each TAGS}}"{{this}}"{{#unless @last}}, {{/unless}}{{/each}}],
    "eachIndex": "{{#each TAGS}}{{@index}}={{this}};{{/each}}",
    "unlessLast": "{{#each TAGS}}{{this}}{{#unless @last}} | {{/unless}}{{/each}}"
  },
  "missing": "{{NOT_A_VARIABLE}}"
}
`

describe('alert templates', () => {
  const template = compileAlertTemplate(TEMPLATE)
  for (const context of ESCAPE_CONTEXTS) {
    test(`renders every variable and helper for a ${context} context (golden file)`, () => {
      const rendered = template.render(variables, context, options)
      const file = join(GOLDEN, `every-variable.${context}.txt`)
      if (process.env.UPDATE_GOLDEN) writeFileSync(file, rendered)
      assert.equal(rendered, readFileSync(file, 'utf8'))
    })
  }

  test('a JSON render is valid JSON that round-trips every value exactly', () => {
    const withoutRaw = compileAlertTemplate(TEMPLATE.replace(/^ {2}"raw".*\n/m, ''))
    const body = JSON.parse(withoutRaw.render(variables, 'json', options))
    for (const name of ALERT_EVENT_VARIABLES.filter((v) => v !== 'TAGS')) {
      assert.equal(body.escaped[name], String(variables[name]), name)
    }
    assert.equal(body.escaped.TAGS, variables.TAGS.join(','))
    assert.deepEqual(body.helpers.each, variables.TAGS)
    assert.equal(body.helpers.RANDOM_NUMBER, 424)
    assert.equal(body.helpers.twoDaysAgo, '2026-03-02')
    assert.equal(body.helpers.lastWeek, String((Date.parse('2026-02-25T05:06:07.089Z') / 1000) | 0))
    assert.equal(body.missing, '')
  })

  test('URL and form contexts decode back to the exact value', () => {
    const url = compileAlertTemplate('https://x.test/{{CHECK_NAME}}?q={{CHECK_NAME}}&raw={{{CHECK_ID}}}')
    const rendered = url.render(variables, 'url', options)
    const parsed = new URL(rendered)
    assert.equal(parsed.searchParams.get('q'), variables.CHECK_NAME)
    assert.equal(decodeURIComponent(parsed.pathname.slice(1)), variables.CHECK_NAME)
    const form = compileAlertTemplate('name={{CHECK_NAME}}&tags={{TAGS}}').render(variables, 'form', options)
    const params = new URLSearchParams(form)
    assert.equal(params.get('name'), variables.CHECK_NAME)
    assert.equal(params.get('tags'), variables.TAGS.join(','))
  })

  test('a placeholder that opens a URL is its base URL: inserted as it is, the ones after it encoded', () => {
    const url = compileAlertTemplate(
      '  {{API_BASE}}/alerts/{{CHECK_TYPE}}?name={{CHECK_NAME}}&base={{API_BASE}}',
    )
    const rendered = url.render(variables, 'url', options)
    assert.equal(
      rendered,
      `  https://hooks.example.com/a b/alerts/API?name=${encodeURIComponent(variables.CHECK_NAME)}&base=${encodeURIComponent(variables.API_BASE)}`,
    )
    assert.equal(new URL(rendered).pathname, '/a%20b/alerts/API')
    // Elsewhere the opening placeholder is encoded for where it lands, like any other.
    assert.equal(
      compileAlertTemplate('{{CHECK_NAME}}').render(variables, 'json', options),
      JSON.stringify(variables.CHECK_NAME).slice(1, -1),
    )
    assert.equal(
      compileAlertTemplate('x{{API_BASE}}').render(variables, 'url', options),
      `x${encodeURIComponent(variables.API_BASE)}`,
    )
  })

  test("a placeholder in a URL's host part goes in as it is; userinfo, path and query stay encoded", () => {
    const values = { HOST_WITH_PORT: 'hooks.test:8443', USER: 'a@b', TOKEN: 'p:w/x', NAME: 'a b/c:d' }
    const render = (source: string) => compileAlertTemplate(source).render(values, 'url', options)
    assert.equal(
      render('https://{{HOST_WITH_PORT}}/x/{{NAME}}?n={{NAME}}&h={{HOST_WITH_PORT}}#{{HOST_WITH_PORT}}'),
      'https://hooks.test:8443/x/a%20b%2Fc%3Ad?n=a%20b%2Fc%3Ad&h=hooks.test%3A8443#hooks.test%3A8443',
    )
    assert.equal(
      render('https://{{USER}}:{{TOKEN}}@{{HOST_WITH_PORT}}/x'),
      'https://a%40b:p%3Aw%2Fx@hooks.test:8443/x',
    )
    assert.equal(new URL(render('http://{{HOST_WITH_PORT}}/')).port, '8443')
    // Elsewhere it is encoded for where it lands.
    assert.equal(
      compileAlertTemplate('{"u": "https://{{NAME}}"}').render(values, 'json', options),
      '{"u": "https://a b/c:d"}',
    )
  })

  test('$UUID and $RANDOM_NUMBER are fresh per use without injected sources', () => {
    const rendered = compileAlertTemplate('{{$UUID}} {{$UUID}} {{$RANDOM_NUMBER}}').render({}, 'text', {
      now: options.now,
      region: 'local',
    })
    const [a, b, n] = rendered.split(' ')
    assert.match(a ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.notEqual(a, b)
    assert.ok(Number(n) >= 0 && Number(n) <= 1000 && Number.isInteger(Number(n)))
  })

  test('a template that does not compile names the line and column', () => {
    const cases: [string, number, number, RegExp][] = [
      ['{\n  "a": "{{CHECK_NAME}"\n}', 2, 21, /Parse error/],
      ['line one\n{{#each TAGS}}\n{{/if}}', 2, 4, /each doesn't match if/],
      ['x\n\n  {{#bogus TAGS}}y{{/bogus}}', 3, 3, /unknown helper bogus/],
      ['{{> partial}}', 1, 1, /partials are not supported/],
    ]
    for (const [source, line, column, message] of cases) {
      assert.throws(
        () => compileAlertTemplate(source),
        (error: unknown) => {
          assert.ok(error instanceof TemplateSyntaxError, source)
          assert.match(error.message, message)
          assert.deepEqual([error.line, error.column], [line, column], source)
          return true
        },
      )
    }
  })

  test('moment formats with the date library tokens: week numbers, week years, localized formats, zone', () => {
    const render = (source: string, now: string) =>
      compileAlertTemplate(source).render({}, 'text', { ...options, now: new Date(now) })
    // Sunday 4 January 2026: week 2 of the Sunday-first locale, ISO week 1 (Monday 29 December to 4 January).
    assert.equal(render('{{moment "w ww wo W WW"}}', '2026-01-04T12:00:00Z'), '2 02 2nd 1 01')
    // Friday 1 January 2027: the locale's week 1 of 2027, ISO week 53 of 2026.
    assert.equal(render('{{moment "gggg-ww GGGG-WW"}}', '2027-01-01T12:00:00Z'), '2027-01 2026-53')
    assert.equal(
      render('{{moment "L|LL|LLL|LLLL|LT|LTS|l|ll"}}', '2026-03-04T05:06:07Z'),
      '03/04/2026|March 4, 2026|March 4, 2026 5:06 AM|Wednesday, March 4, 2026 5:06 AM|5:06 AM|5:06:07 AM|3/4/2026|Mar 4, 2026',
    )
    assert.equal(render('{{moment "HH:mm z"}}', '2026-03-04T05:06:07Z'), '05:06 UTC')
    assert.equal(render('{{moment "yesterday" "LL"}}', '2026-03-04T05:06:07Z'), 'March 3, 2026')
  })

  test('relative dates take amounts in words, as the spec writes them ("two days ago")', () => {
    const render = (text: string) =>
      compileAlertTemplate(`{{moment "${text}" "YYYY-MM-DD HH:mm"}}`).render({}, 'text', options)
    assert.equal(render('two days ago'), '2026-03-02 05:06')
    assert.equal(render('Three weeks ago'), '2026-02-11 05:06')
    assert.equal(render('in twelve hours'), '2026-03-04 17:06')
    assert.equal(render('an hour ago'), '2026-03-04 04:06')
    assert.equal(render('ten minutes ago'), '2026-03-04 04:56')
  })

  test('a helper called the wrong way is refused at compile, with its line and column', () => {
    const cases: [string, number, number, string][] = [
      [
        '{{#if CHECK_NAME}}\n  {{eq ALERT_TYPE "ALERT_FAILURE"}}\n{{/if}}',
        2,
        3,
        'eq is a block helper: write {{#eq ...}}...{{/eq}}',
      ],
      [
        '{{contains TAGS "prod"}}',
        1,
        1,
        'contains is a block helper: write {{#contains ...}}...{{/contains}}',
      ],
      ['{{#if CHECK_NAME}}{{#each}}x{{/each}}{{/if}}', 1, 19, '#each takes 1 argument, got 0'],
      ['{{#with}}x{{/with}}', 1, 1, '#with takes 1 argument, got 0'],
      ['{{#if A B}}x{{/if}}', 1, 1, '#if takes 1 argument, got 2'],
      ['{{#unless}}x{{/unless}}', 1, 1, '#unless takes 1 argument, got 0'],
      ['{{#eq ALERT_TYPE}}x{{/eq}}', 1, 1, '#eq takes 2 arguments, got 1'],
      ['{{#contains TAGS "a" "b"}}x{{/contains}}', 1, 1, '#contains takes 2 arguments, got 3'],
      ['{{lookup TAGS}}', 1, 1, 'lookup takes 2 arguments, got 1'],
      ['{{#blockHelperMissing}}x{{/blockHelperMissing}}', 1, 1, 'unknown helper blockHelperMissing'],
    ]
    for (const [source, line, column, message] of cases) {
      assert.throws(
        () => compileAlertTemplate(source),
        (error: unknown) => {
          assert.ok(error instanceof TemplateSyntaxError, source)
          assert.equal(error.message, `${message} (line ${line}, column ${column})`, source)
          return true
        },
      )
    }
    // Names that are helpers elsewhere still read variables when used as values.
    const values = compileAlertTemplate('{{log}} {{{each}}} {{#if eq}}{{eq}}{{/if}}')
    assert.equal(values.render({ log: 'L', each: 'E', eq: 'Q' }, 'text', options), 'L E Q')
  })

  test('names lists what a template reads, for secret warnings', () => {
    const { names } = compileAlertTemplate(
      '{{A}} {{{B}}} {{#each C}}{{this}}{{/each}} {{#eq D "x"}}{{/eq}} {{$UUID}}',
    )
    for (const name of ['A', 'B', 'C', 'D']) assert.ok(names.has(name), name)
  })

  test('#each renders within a budget: nested loops over 100 tags stop with an error, not a frozen server', () => {
    const tags = Array.from({ length: 100 }, (_, i) => `tag-${i}`)
    const one = compileAlertTemplate('{{#each TAGS}}"{{this}}"{{#unless @last}},{{/unless}}{{/each}}')
    assert.equal(one.render({ TAGS: tags }, 'json', options), tags.map((tag) => `"${tag}"`).join(','))
    const two = compileAlertTemplate('{{#each TAGS}}{{#each ../TAGS}}x{{/each}}{{/each}}')
    assert.equal(two.render({ TAGS: tags }, 'text', options), 'x'.repeat(10_000))
    for (const source of [
      // 10^10 iterations, 10^10 characters.
      '{{#each TAGS}}{{#each ../TAGS}}{{#each ../../TAGS}}{{#each ../../../TAGS}}{{#each ../../../../TAGS}}x{{/each}}{{/each}}{{/each}}{{/each}}{{/each}}',
      // 10^10 iterations that render nothing.
      '{{#each TAGS}}{{#each ../TAGS}}{{#each ../../TAGS}}{{#each ../../../TAGS}}{{#each ../../../../TAGS}}{{/each}}{{/each}}{{/each}}{{/each}}{{/each}}',
      // Few iterations of a big text.
      `{{#each TAGS}}{{#each ../TAGS}}${'y'.repeat(200)}{{/each}}{{/each}}`,
    ]) {
      assert.throws(
        () => compileAlertTemplate(source).render({ TAGS: tags }, 'json', options),
        /^Error: the template renders too much: #each may produce at most 1 MiB$/,
      )
    }
  })

  test('placeholders insert at most 1 MiB in one render: 13,000 of a 10 KB variable stop with an error', () => {
    const big = { V: 'v'.repeat(10_000) }
    // 100 placeholders, 1 MB: fine, escaped or raw.
    const fine = compileAlertTemplate(`{"a": "${'{{V}}'.repeat(50)}${'{{{V}}}'.repeat(50)}"}`)
    assert.equal(fine.render(big, 'json', options).length, 1_000_009)
    for (const source of [
      // 130 MB from a 64 KiB template: the render froze the node for seconds and took half a GB.
      `{"a": "${'{{V}}'.repeat(13_000)}"}`,
      `{"a": "${'{{{V}}}'.repeat(9_000)}"}`,
      `{"a": "{{#each TAGS}}${'{{{../V}}}'.repeat(200)}{{/each}}"}`,
    ]) {
      assert.throws(
        () => compileAlertTemplate(source).render({ ...big, TAGS: ['a'] }, 'json', options),
        /^Error: the template renders too much: its placeholders may insert at most 1 MiB$/,
        source.slice(0, 40),
      )
    }
  })

  test('the body context follows the Content-Type', () => {
    assert.equal(bodyContextOf(undefined), 'json')
    assert.equal(bodyContextOf('application/json; charset=utf-8'), 'json')
    assert.equal(bodyContextOf('application/vnd.api+json'), 'json')
    assert.equal(bodyContextOf('application/x-www-form-urlencoded'), 'form')
    assert.equal(bodyContextOf('text/plain'), 'text')
    for (const type of ['text/html; charset=utf-8', 'application/xml', 'text/xml', 'application/atom+xml'])
      assert.equal(bodyContextOf(type), 'html', type)
  })

  test('an HTML or XML body escapes {{X}} as Handlebars does, {{{X}}} stays raw', () => {
    const html = compileAlertTemplate('<p title="{{CHECK_NAME}}">{{CHECK_ERROR_MESSAGE}}</p>{{{GROUP_NAME}}}')
    assert.equal(
      html.render(
        {
          CHECK_NAME: `a "b" 'c' = \`d\``,
          CHECK_ERROR_MESSAGE: '<script>x && y</script>',
          GROUP_NAME: '<b>',
        },
        'html',
        options,
      ),
      '<p title="a &quot;b&quot; &#x27;c&#x27; &#x3D; &#x60;d&#x60;">&lt;script&gt;x &amp;&amp; y&lt;/script&gt;</p><b>',
    )
  })
})
