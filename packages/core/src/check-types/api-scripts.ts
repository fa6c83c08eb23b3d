import { Type } from 'typebox'
import { Nullable } from '../schema-helpers.ts'

/** The longest setup or teardown script taken, on an API check or a group. */
export const MAX_API_SCRIPT_LENGTH = 1_000_000

/**
 * Setup and teardown of `scope` (the check, or each API check of a group): a snippet of the account's, or
 * a script of its own. Null or absent: none.
 */
export function apiScriptFields(scope: string) {
  const snippetId = (when: string) =>
    Type.Optional(
      Nullable(Type.Integer({ minimum: 1, description: `A snippet (/v1/snippets) run ${when}.` })),
    )
  const script = (when: string) =>
    Type.Optional(
      Nullable(Type.String({ maxLength: MAX_API_SCRIPT_LENGTH, description: `Node.js code run ${when}.` })),
    )
  return {
    setupSnippetId: snippetId(`before the request of ${scope}`),
    tearDownSnippetId: snippetId(`after the response of ${scope}, before its assertions`),
    localSetupScript: script(`before the request of ${scope}`),
    localTearDownScript: script(`after the response of ${scope}, before its assertions`),
  }
}

/** One script a run of an API check runs: its name in logs and errors, and its code. */
export interface ApiScript {
  name: string
  source: string
}

/**
 * What an API check's run executes around its request (set only when there is a script): the setup
 * scripts in order before it, the teardown scripts after its response, with `environment` as
 * `process.env`.
 */
export interface ApiScripts {
  setup: ApiScript[]
  tearDown: ApiScript[]
  environment: Record<string, string>
}
