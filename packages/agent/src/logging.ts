export interface Logger {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

/** An error's message, with its cause's (fetch puts the network's reason there). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
  }
  return String(error)
}
