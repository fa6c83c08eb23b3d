// The dates `{{moment "2 days ago" "YYYY-MM-DD"}}` reads, in words.
import dayjs from 'dayjs'

const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'] as const
type Unit = (typeof UNITS)[number]
const unitOf = (word: string): Unit | undefined => UNITS.find((u) => word === u || word === `${u}s`)
const NUMBER_WORDS = 'one two three four five six seven eight nine ten eleven twelve'.split(' ')
const amountOf = (word: string) =>
  word === 'a' || word === 'an' ? 1 : NUMBER_WORDS.indexOf(word) + 1 || Number(word)

/** "2 days ago", "in 3 hours", "last week", "next month", "yesterday", "today", "tomorrow". */
export function relativeDate(now: dayjs.Dayjs, text: string): dayjs.Dayjs {
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
