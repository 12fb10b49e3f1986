/** Reads a loader runs at once: a call waits for at most about one round trip before its read starts. */
export const MAX_READS_IN_FLIGHT = 2

/**
 * Read coalescing for the per-request look-ups (docs/decisions/0051).
 *
 * A loader runs at most `maxInFlight` reads at a time. A call never joins a read in flight (that read started
 * before the call, so it may miss a write committed just before the call): it starts a read of its own when
 * fewer are in flight, else it waits in the queue for the next read, which starts as soon as one in flight
 * ends and serves every call queued meanwhile. So a call always gets what a read started after the call saw
 * (the same as one query of its own), while under concurrency N callers share a few round trips instead of N.
 */
export function batchLoader<K, V>(
  load: (keys: K[]) => Promise<Map<K, V>>,
  maxInFlight = MAX_READS_IN_FLIGHT,
): (key: K) => Promise<V | undefined> {
  let running = 0
  let queue: { key: K; resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[] = []

  const run = () => {
    if (running >= maxInFlight || queue.length === 0) return
    running++
    const batch = queue
    queue = []
    const keys = [...new Set(batch.map((call) => call.key))]
    load(keys).then(
      (values) => {
        running--
        for (const call of batch) call.resolve(values.get(call.key))
        run()
      },
      (error: unknown) => {
        running--
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
export function coalescedRead<V>(read: () => Promise<V>, maxInFlight = MAX_READS_IN_FLIGHT): () => Promise<V> {
  const load = batchLoader<0, V>(async () => new Map([[0, await read()]]), maxInFlight)
  return async () => (await load(0)) as V
}

/**
 * Writes coalesced per key (docs/decisions/0083): at most one write of a key is in flight. A call starts its key's
 * write at once when none is in flight, else waits for the next one, which serves every call of that key queued
 * meanwhile: `write(params, count)` runs once for `count` calls (in their order of arrival) and answers one result
 * per call, in that order. As with the loaders above, the write that serves a call starts after the call arrived.
 * Calls of other keys never wait for each other. `params` must be what the key says: the calls of one key share the
 * first one's.
 */
export function batchedWrites<P, R>(write: (params: P, count: number) => Promise<R[]>): (key: string, params: P) => Promise<R> {
  interface Lane {
    params: P
    running: boolean
    queue: { resolve: (value: R) => void; reject: (error: unknown) => void }[]
  }
  const lanes = new Map<string, Lane>()

  const run = (key: string, lane: Lane) => {
    if (lane.running) return
    if (lane.queue.length === 0) {
      lanes.delete(key)
      return
    }
    lane.running = true
    const batch = lane.queue
    lane.queue = []
    const settle = (settleCalls: () => void) => {
      lane.running = false
      settleCalls()
      run(key, lane)
    }
    write(lane.params, batch.length).then(
      (results) =>
        settle(() => {
          if (results.length !== batch.length) {
            const error = new Error(`a batched write answered ${results.length} results for ${batch.length} calls`)
            for (const call of batch) call.reject(error)
          } else for (const [index, call] of batch.entries()) call.resolve(results[index] as R)
        }),
      (error: unknown) => settle(() => batch.forEach((call) => call.reject(error))),
    )
  }

  return (key: string, params: P) =>
    new Promise<R>((resolve, reject) => {
      let lane = lanes.get(key)
      if (!lane) lanes.set(key, (lane = { params, running: false, queue: [] }))
      lane.queue.push({ resolve, reject })
      run(key, lane)
    })
}

/**
 * Identical computations shared before they start (docs/decisions/0066). The first call with a key schedules
 * the computation for the next turn of the event loop (`setImmediate`); every call with the same key until
 * then gets the same promise. Once it has started, a call with that key schedules a new one: like the loaders
 * above, a call never joins work that began before it arrived, so it gets what a computation of its own would.
 * For in-process work that runs without a pause (a count over in-memory indexes), concurrent identical requests,
 * such as the tiles of one map view, then cost one computation instead of one each.
 */
export function sharedBeforeStart<V>(): (key: string, compute: () => Promise<V>) => Promise<V> {
  const scheduled = new Map<string, Promise<V>>()
  return (key, compute) => {
    let pending = scheduled.get(key)
    if (!pending) {
      pending = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        scheduled.delete(key)
        return compute()
      })
      scheduled.set(key, pending)
    }
    return pending
  }
}
