/** Waits until `queue` calls this waiter; when `signal` aborts first, leaves the queue and rejects. */
export function waitInQueue(queue: (() => void)[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const wake = () => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    const abort = () => {
      const at = queue.indexOf(wake)
      if (at >= 0) queue.splice(at, 1)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', abort, { once: true })
    queue.push(wake)
  })
}
