/** What a scrubbed secret reads as. */
export const SCRUBBED = '***masked***'

/** Shorter values are not scrubbed: replacing every "a" or "1" would destroy the output, not protect it. */
export const MIN_SCRUBBED_LENGTH = 4

/**
 * A function that replaces every occurrence of the given secret values in a text: as written,
 * URL-encoded, form-encoded, and in base64 or base64url, also inside a longer encoded string (e.g. the
 * password inside a basic-auth header), which needs the secret's encoding at each of the three byte
 * alignments.
 */
export function createScrubber(secrets: Iterable<string>): (text: string) => string {
  const needles = new Set<string>()
  for (const secret of secrets) {
    if (secret.length < MIN_SCRUBBED_LENGTH) continue
    needles.add(secret)
    needles.add(encodeURIComponent(secret))
    needles.add(encodeURIComponent(secret).replaceAll('%20', '+'))
    for (const encoded of base64Forms(secret)) {
      if (encoded.length >= MIN_SCRUBBED_LENGTH) needles.add(encoded)
    }
  }
  if (needles.size === 0) return (text) => text
  // Longest first, so a secret is replaced whole before any shorter needle inside it.
  const pattern = new RegExp(
    [...needles]
      .sort((a, b) => b.length - a.length)
      .map((needle) => needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  )
  return (text) => text.replace(pattern, SCRUBBED)
}

/** Applies `scrub` to every string inside `value` (object keys included). */
export function scrubDeep<T>(value: T, scrub: (text: string) => string): T {
  if (typeof value === 'string') return scrub(value) as T
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [scrub(key), scrubDeep(item, scrub)]),
    ) as T
  }
  return value
}

/**
 * The base64 characters that depend only on the secret's bytes, for the secret starting at byte
 * offset 0, 1 and 2 of a longer encoded string; in standard and URL-safe alphabets.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret)
  const forms: string[] = []
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '')
    const end = offset + bytes.length
    // Char k (0-3) of a base64 group reads bits 6k to 6k+5 of its 3 bytes: bytes ⌊6k/8⌋ to ⌊(6k+5)/8⌋.
    const pure = (i: number) => {
      const group = Math.floor(i / 4) * 3
      const bit = (i % 4) * 6
      return group + Math.floor(bit / 8) >= offset && group + Math.floor((bit + 5) / 8) < end
    }
    let from = 0
    while (from < encoded.length && !pure(from)) from++
    let to = encoded.length
    while (to > from && !pure(to - 1)) to--
    const middle = encoded.slice(from, to)
    forms.push(middle, middle.replaceAll('+', '-').replaceAll('/', '_'))
  }
  return forms
}
