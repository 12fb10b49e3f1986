import { describe, expect, it } from 'vitest'
import { batchLoader, batchedWrites, coalescedRead, sharedBeforeStart } from './coalesce.ts'

/** A read whose completion the test controls, recording when it started and which keys it got. */
function controlledLoad() {
  const runs: { keys: number[]; startedAt: number; finish: () => void }[] = []
  let clock = 0
  const load = (keys: number[]) =>
    new Promise<Map<number, string>>((resolve) => {
      const startedAt = ++clock
      runs.push({ keys, startedAt, finish: () => resolve(new Map(keys.map((k) => [k, `${k}@${startedAt}`]))) })
    })
  return { runs, load, tick: () => ++clock }
}

describe('batchLoader', () => {
  it('serves the calls that arrive during a read with one later read, never with the read in flight', async () => {
    const { runs, load } = controlledLoad()
    const get = batchLoader(load, 1)
    const first = get(1)
    expect(runs).toHaveLength(1)
    // these arrive while the first read is in flight: they must not share it
    const second = get(2)
    const third = get(1)
    const fourth = get(3)
    expect(runs).toHaveLength(1)
    runs[0]!.finish()
    expect(await first).toBe('1@1')
    await Promise.resolve()
    expect(runs).toHaveLength(2)
    expect(runs[1]!.keys).toEqual([2, 1, 3])
    runs[1]!.finish()
    expect(await Promise.all([second, third, fourth])).toEqual(['2@2', '1@2', '3@2'])
  })

  it('starts a read per call up to the limit in flight, then queues the calls for the next read', async () => {
    const { runs, load } = controlledLoad()
    const get = batchLoader(load, 2)
    const calls = [get(1), get(2), get(3), get(4)]
    expect(runs.map((r) => r.keys)).toEqual([[1], [2]])
    runs[1]!.finish()
    await calls[1]
    await Promise.resolve()
    expect(runs.map((r) => r.keys)).toEqual([[1], [2], [3, 4]])
    runs[0]!.finish()
    runs[2]!.finish()
    expect(await Promise.all(calls)).toEqual(['1@1', '2@2', '3@3', '4@3'])
  })

  it('answers undefined for a key the read did not find, and rejects the calls of a failed read only', async () => {
    let fail = true
    const get = batchLoader(async (keys: number[]) => {
      if (fail) {
        fail = false
        throw new Error('down')
      }
      return new Map(keys.filter((k) => k !== 9).map((k) => [k, k * 10]))
    })
    await expect(get(1)).rejects.toThrow('down')
    expect(await Promise.all([get(1), get(9)])).toEqual([10, undefined])
  })
})

describe('coalescedRead', () => {
  it('gives each caller a value read after its call', async () => {
    let value = 0
    let reads = 0
    const read = coalescedRead(async () => {
      reads++
      const seen = value // what the database would answer as of the read's start
      await new Promise((resolve) => setTimeout(resolve, 5))
      return seen
    }, 1)
    const before = read()
    value = 1 // a write that lands after the first read started
    const after = await Promise.all([read(), read(), read()])
    expect(await before).toBe(0)
    expect(after).toEqual([1, 1, 1])
    expect(reads).toBe(2)
  })
})

describe('batchedWrites', () => {
  /** A write whose completion the test controls: it records the params and count it got and answers `label#k`. */
  function controlledWrite() {
    const runs: { params: string; count: number; finish: () => void; fail: (error: Error) => void }[] = []
    const write = (params: string, count: number) =>
      new Promise<string[]>((resolve, reject) => {
        const run = runs.length + 1
        runs.push({
          params,
          count,
          finish: () => resolve(Array.from({ length: count }, (_, k) => `${params}@${run}#${k}`)),
          fail: reject,
        })
      })
    return { runs, write }
  }

  it('runs one write per key at a time; the calls that arrive meanwhile share the next, each with its own result in order', async () => {
    const { runs, write } = controlledWrite()
    const take = batchedWrites(write)
    const first = take('a', 'A')
    expect(runs.map((r) => [r.params, r.count])).toEqual([['A', 1]])
    // these arrive while the first write is in flight: they must not share it
    const queued = [take('a', 'A'), take('a', 'A'), take('a', 'A')]
    // another key does not wait for this one
    const other = take('b', 'B')
    expect(runs.map((r) => [r.params, r.count])).toEqual([
      ['A', 1],
      ['B', 1],
    ])
    runs[0]!.finish()
    expect(await first).toBe('A@1#0')
    await Promise.resolve()
    expect(runs.map((r) => [r.params, r.count])).toEqual([
      ['A', 1],
      ['B', 1],
      ['A', 3],
    ])
    runs[2]!.finish()
    expect(await Promise.all(queued)).toEqual(['A@3#0', 'A@3#1', 'A@3#2'])
    runs[1]!.finish()
    expect(await other).toBe('B@2#0')
    // idle again: the next call starts at once
    const later = take('a', 'A')
    expect(runs.at(-1)).toMatchObject({ params: 'A', count: 1 })
    runs.at(-1)!.finish()
    expect(await later).toBe('A@4#0')
  })

  it('rejects the calls of a failed write only, and of a write that answers the wrong number of results', async () => {
    const { runs, write } = controlledWrite()
    const take = batchedWrites(write)
    const failing = take('k', 'K')
    const next = [take('k', 'K'), take('k', 'K')]
    runs[0]!.fail(new Error('down'))
    await expect(failing).rejects.toThrow('down')
    await Promise.resolve()
    expect(runs[1]!.count).toBe(2)
    runs[1]!.finish()
    expect(await Promise.all(next)).toEqual(['K@2#0', 'K@2#1'])

    const short = batchedWrites<string, string>(async () => ['only one'])
    const calls = [short('k', 'K'), short('k', 'K'), short('k', 'K')]
    expect(await calls[0]).toBe('only one')
    await expect(calls[1]).rejects.toThrow('answered 1 results for 2 calls')
    await expect(calls[2]).rejects.toThrow('answered 1 results for 2 calls')
  })
})

describe('sharedBeforeStart', () => {
  it('gives the calls that reach a computation before it starts one run, and a call after its start a new run', async () => {
    const share = sharedBeforeStart<string>()
    const started: string[] = []
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const compute = (label: string) => async () => {
      started.push(label)
      await gate
      return `${label}@${started.length}`
    }
    const a = share('k', compute('a'))
    const b = share('k', compute('b'))
    const other = share('j', compute('other'))
    // nothing runs in the turn of the calls
    expect(started).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    // one run per key: the first call's computation, shared by the second
    expect(started).toEqual(['a', 'other'])
    expect(b).toBe(a)
    // this call arrives after the run of 'k' started: it must not join it
    const c = share('k', compute('c'))
    expect(c).not.toBe(a)
    release()
    expect(await Promise.all([a, b, other])).toEqual(['a@2', 'a@2', 'other@2'])
    expect(await c).toBe('c@3')
    expect(started).toEqual(['a', 'other', 'c'])
  })

  it("gives every sharer the computation's error, and the next call a fresh run", async () => {
    const share = sharedBeforeStart<number>()
    let runs = 0
    const failing = async () => {
      runs++
      throw new Error('count failed')
    }
    const calls = [share('k', failing), share('k', failing)]
    for (const call of calls) await expect(call).rejects.toThrow('count failed')
    expect(runs).toBe(1)
    expect(await share('k', async () => ++runs)).toBe(2)
  })
})
