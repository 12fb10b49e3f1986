import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { oneBuildAtATime, queuedBuilds } from '../lib/build-queue.ts'
import { engineBudgetStats } from '../lib/engine-budget.ts'
import { versionedBuild } from './versioned-build.ts'

/** A build that finishes when told to. */
function gated<T>() {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => (open = resolve))
  return { promise, open }
}

const fakePool = () => ({}) as pg.Pool

describe('versioned builds', () => {
  it('lets the older version go as a newer one starts, and never builds an older version over a newer one', async () => {
    const pool = fakePool()
    const gates = new Map<string, ReturnType<typeof gated<{ version: string; bytes: number }>>>()
    const started: string[] = []
    const build = versionedBuild((_pool, version) => {
      started.push(version)
      const gate = gated<{ version: string; bytes: number }>()
      gates.set(version, gate)
      return gate.promise
    }, 'test_versioned')
    const v1 = '1:1'
    const v2 = '2:1'

    const first = build(pool, v1, true)
    await new Promise((resolve) => setImmediate(resolve))
    gates.get(v1)!.open({ version: v1, bytes: 1_000 })
    expect(await first).toEqual({ version: v1, bytes: 1_000 })
    expect(build.held(pool)?.version).toBe(v1)
    const heldBefore = engineBudgetStats().heldBytes

    // a newer version: its build starts and the older index is let go at once (not both held)
    expect(await build(pool, v2)).toBeNull()
    expect(build.held(pool)).toBeNull()
    expect(engineBudgetStats().heldBytes).toBe(heldBefore - 1_000)

    // a request still at the older version reads its own rows (null), and starts no build of it
    expect(await build(pool, v1)).toBeNull()
    await new Promise((resolve) => setImmediate(resolve))
    expect(started).toEqual([v1, v2])

    // awaiting, the older version is given the newer index
    const waiting = build(pool, v1, true)
    gates.get(v2)!.open({ version: v2, bytes: 2_000 })
    expect(await waiting).toEqual({ version: v2, bytes: 2_000 })
    expect(build.held(pool)?.version).toBe(v2)
    expect(await build(pool, v1)).toBeNull()
    expect(started).toEqual([v1, v2])
  })

  it('runs one whole-index build at a time per process; the others wait their turn', async () => {
    let running = 0
    let most = 0
    const gates = [gated<number>(), gated<number>(), gated<number>()]
    const builds = gates.map((gate, k) =>
      oneBuildAtATime(async () => {
        running++
        most = Math.max(most, running)
        const value = await gate.promise
        running--
        return value + k
      }),
    )
    await new Promise((resolve) => setImmediate(resolve))
    expect(running).toBe(1)
    expect(queuedBuilds()).toBe(2)
    // finishing them out of order changes nothing: the second starts only when the first is done
    gates[2]!.open(100)
    gates[1]!.open(10)
    gates[0]!.open(1)
    expect(await Promise.all(builds)).toEqual([1, 11, 102])
    expect(most).toBe(1)
    expect(queuedBuilds()).toBe(0)
  })
})
