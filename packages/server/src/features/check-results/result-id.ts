import { v7 } from 'uuid'

/**
 * A new result's id: a time-ordered UUID (version 7). New results then land at the end of the primary
 * key's index instead of on random pages, so a batch of results dirties a few pages rather than one each.
 */
export const newResultId = (): string => v7()
