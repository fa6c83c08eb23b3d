import { findRuntime, RUNTIMES, type Runtime } from '@svc/core'
import { notFound } from '../../http/errors.ts'

export function listRuntimes(): Runtime[] {
  return [...RUNTIMES]
}

export function getRuntime(id: string): Runtime {
  const runtime = findRuntime(id)
  if (!runtime) throw notFound(`Runtime ${id} not found`)
  return runtime
}
