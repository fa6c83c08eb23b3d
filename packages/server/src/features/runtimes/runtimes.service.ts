import { findRuntime, RUNTIMES, type Runtime } from '@svc/core'
import { notFound } from '../../http/errors.ts'

/** A runtime as the API answers it: the hosted schema's `runtimeEndOfLife` is a string, so none is left out. */
type RuntimeView = Omit<Runtime, 'runtimeEndOfLife'> & { runtimeEndOfLife?: string }

function viewOf({ runtimeEndOfLife, ...runtime }: Runtime): RuntimeView {
  return runtimeEndOfLife === null ? runtime : { ...runtime, runtimeEndOfLife }
}

export function listRuntimes(): RuntimeView[] {
  return RUNTIMES.map(viewOf)
}

export function getRuntime(id: string): RuntimeView {
  const runtime = findRuntime(id)
  if (!runtime) throw notFound(`Runtime ${id} not found`)
  return viewOf(runtime)
}
