/**
 * Rows per page of the overview: the server filters, orders (failing first) and pages the list. Its own
 * module without imports, so the build (vite.config.ts, which writes it into index.html's early read) and
 * bench/web.ts take the same number as the app.
 */
export const OVERVIEW_PAGE_SIZE = 50
