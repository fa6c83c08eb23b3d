import type { Scrubber } from '@svc/core'
import type { AgentErrorEvent } from './api-client.ts'

const MAX_MESSAGE = 10_000
const MAX_STACK = 50_000
// `file://` locations in stacks are code paths, kept as paths; every other URL is dropped.
const URL_PATTERN = /\b([a-z][a-z0-9+.-]*):\/\/[^\s"'<>()[\]{}`]*/gi

/** Removes URLs (with their credentials, hosts and query strings) from text. */
export function dropUrls(text: string): string {
  return text.replace(URL_PATTERN, (url, scheme: string) =>
    scheme.toLowerCase() === 'file' ? url.slice('file://'.length) : '[URL]',
  )
}

/**
 * An error-level event as the agent may send it: message and stack only, with secrets scrubbed (all
 * their encoded forms) and URLs dropped, plus the agent version, platform and runtime version.
 */
export function errorEventOf(
  error: unknown,
  scrubber: Scrubber,
  agent: { version: string },
): AgentErrorEvent {
  const raw =
    error instanceof Error
      ? { message: error.message || error.name, stack: error.stack ?? null }
      : { message: String(error), stack: null }
  const clean = (text: string, max: number) => scrubber.text(dropUrls(text)).slice(0, max)
  return {
    message: clean(raw.message, MAX_MESSAGE) || 'Error',
    stack: raw.stack === null ? null : clean(raw.stack, MAX_STACK),
    agentVersion: agent.version,
    platform: `${process.platform}-${process.arch}`,
    runtimeVersion: process.version,
  }
}
