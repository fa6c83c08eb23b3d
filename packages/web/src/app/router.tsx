import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react'

/** A small history router: the app's routes are few and flat, so a path match is all it needs. */

const listeners = new Set<() => void>()
function notify(): void {
  for (const listener of listeners) listener()
}
window.addEventListener('popstate', notify)

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  window.scrollTo(0, 0)
  notify()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function useLocation(): { path: string; search: URLSearchParams } {
  const href = useSyncExternalStore(subscribe, () => location.pathname + location.search)
  const url = new URL(href, location.origin)
  return { path: url.pathname, search: url.searchParams }
}

/** Matches `/checks/:id` style patterns; answers the named parts or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean)
  const have = path.split('/').filter(Boolean)
  if (want.length !== have.length) return null
  const params: Record<string, string> = {}
  for (let index = 0; index < want.length; index++) {
    const part = want[index] as string
    const value = have[index] as string
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value)
    else if (part !== value) return null
  }
  return params
}

export function setSearch(params: Record<string, string | undefined>): void {
  const search = new URLSearchParams(location.search)
  for (const [key, value] of Object.entries(params)) {
    if (value) search.set(key, value)
    else search.delete(key)
  }
  const text = search.toString()
  history.replaceState(null, '', location.pathname + (text ? `?${text}` : ''))
  notify()
}

export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href, onClick, ...rest } = props
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event)
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return
    event.preventDefault()
    navigate(href)
  }
  return <a href={href} {...rest} onClick={follow} />
}
