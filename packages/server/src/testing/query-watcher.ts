import {
  type KyselyPlugin,
  type OperationNode,
  type QueryId,
  type RootOperationNode,
  SelectQueryNode,
  TableNode,
  UpdateQueryNode,
} from 'kysely'

export interface QueryWatcher {
  /** Add to the store a component queries through: `{ ...ctx, db: ctx.db.withPlugin(watcher.plugin) }`. */
  plugin: KyselyPlugin
  /**
   * Resolves once the next `kind` query of `table` (issued from now on) has answered and what its caller
   * did with the answer has run: an event to wait for instead of a fixed time.
   */
  answered(kind: 'select' | 'update', table: string): Promise<void>
}

/** Watches the queries of one component (a scheduler, say), so a test can wait for them. */
export function watchQueries(): QueryWatcher {
  const issued = new WeakMap<QueryId, string>()
  let waiters: { key: string; done: () => void }[] = []
  return {
    plugin: {
      transformQuery({ node, queryId }) {
        const key = keyOf(node)
        if (key) issued.set(queryId, key)
        return node
      },
      async transformResult({ queryId, result }) {
        const key = issued.get(queryId)
        const now = waiters.filter((waiter) => waiter.key === key)
        waiters = waiters.filter((waiter) => waiter.key !== key)
        // After the caller's own continuation: it runs in the microtasks before this macrotask.
        for (const waiter of now) setImmediate(waiter.done)
        return result
      },
    },
    answered(kind, table) {
      return new Promise((done) => waiters.push({ key: `${kind} ${table}`, done }))
    },
  }
}

function keyOf(node: RootOperationNode): string | undefined {
  if (SelectQueryNode.is(node)) {
    const table = tableName(node.from?.froms[0])
    return table && `select ${table}`
  }
  if (UpdateQueryNode.is(node)) {
    const table = tableName(node.table)
    return table && `update ${table}`
  }
  return undefined
}

const tableName = (node: OperationNode | undefined) =>
  node && TableNode.is(node) ? node.table.identifier.name : undefined
