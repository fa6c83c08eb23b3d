import type { LlmConfig } from '../../config.ts'
import type { Analysis } from './analysis.ts'
import type { Evidence } from './evidence.ts'

export class LlmError extends Error {}

const SYSTEM_PROMPT = [
  'You are a site reliability engineer explaining why a synthetic monitoring check fails.',
  'Use only the evidence given; do not invent facts, hosts or times. Name the failing phase, since when,',
  'in which locations, what changed around the start and whether other checks share the failure.',
  "Take the user's context into account when it is given. Answer in plain language, in at most six",
  'sentences, without markdown.',
].join(' ')

/** Asks the model for the summary of `evidence`; answers the text and the model that wrote it. */
export async function summarizeWithLlm(
  config: LlmConfig,
  evidence: Evidence,
  rules: Analysis,
): Promise<{ summary: string; model: string }> {
  const url = /\/chat\/completions\/?$/.test(config.url)
    ? config.url
    : `${config.url.replace(/\/+$/, '')}/chat/completions`
  const body = {
    model: config.model,
    temperature: 0.2,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      {
        role: 'user',
        content: JSON.stringify({
          evidence,
          findingsByRules: {
            classification: rules.classification,
            rootCause: rules.rootCause,
            nextSteps: rules.nextSteps,
          },
          userContext: evidence.userContext || null,
        }),
      },
    ],
  }
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(config.timeoutMs ?? 60_000),
    })
  } catch (error) {
    throw new LlmError(`The model at SVC_LLM_URL could not be reached: ${(error as Error).message}`)
  }
  const text = await response.text()
  if (!response.ok) {
    throw new LlmError(`The model at SVC_LLM_URL answered ${response.status}: ${text.slice(0, 200)}`)
  }
  let parsed: { model?: unknown; choices?: { message?: { content?: unknown } }[] }
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new LlmError('The model at SVC_LLM_URL answered something other than JSON')
  }
  const content = parsed.choices?.[0]?.message?.content
  if (typeof content !== 'string' || content.trim() === '') {
    throw new LlmError('The model at SVC_LLM_URL answered no message content')
  }
  return { summary: content.trim(), model: typeof parsed.model === 'string' ? parsed.model : config.model }
}
