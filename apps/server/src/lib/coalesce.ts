/**
 * Read coalescing for the per-request look-ups (docs/decisions/0051).
 *
 * A loader runs at most one read at a time. A call that arrives while a read is in flight does not join it
 * (that read started before the call, so it may miss a write committed just before the call): it waits for
 * the next read, which starts as soon as the one in flight ends and serves every call queued meanwhile. So a
 * call always gets what a read started after the call saw (the same as one query of its own), while under
 * concurrency N callers share one round trip instead of paying N.
 */
export function batchLoader<K, V>(load: (keys: K[]) => Promise<Map<K, V>>): (key: K) => Promise<V | undefined> {
  let running = false
  let queue: { key: K; resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[] = []

  const run = () => {
    if (running || queue.length === 0) return
    running = true
    const batch = queue
    queue = []
    const keys = [...new Set(batch.map((call) => call.key))]
    load(keys).then(
      (values) => {
        running = false
        for (const call of batch) call.resolve(values.get(call.key))
        run()
      },
      (error: unknown) => {
        running = false
        for (const call of batch) call.reject(error)
        run()
      },
    )
  }

  return (key: K) =>
    new Promise<V | undefined>((resolve, reject) => {
      queue.push({ key, resolve, reject })
      run()
    })
}

/** A keyless {@link batchLoader}: every call gets the result of a read that started after it. */
export function coalescedRead<V>(read: () => Promise<V>): () => Promise<V> {
  const load = batchLoader<0, V>(async () => new Map([[0, await read()]]))
  return async () => (await load(0)) as V
}
