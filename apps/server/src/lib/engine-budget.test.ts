import { afterEach, describe, expect, it } from 'vitest'
import { engineBudgetStats, holdEngine, releaseEngine, setEngineMemoryBudget, touchEngine } from './engine-budget.ts'

describe('the engines’ shared memory budget', () => {
  afterEach(() => setEngineMemoryBudget(null))

  it('drops the least recently used others when a new index exceeds the budget, never the new one', () => {
    setEngineMemoryBudget(100)
    const dropped: string[] = []
    const a = {}
    const b = {}
    const c = {}
    holdEngine(a, 'x', 40, () => dropped.push('a'))
    holdEngine(b, 'y', 40, () => dropped.push('b'))
    touchEngine(a) // b is now the least recently used
    holdEngine(c, 'x', 40, () => dropped.push('c'))
    expect(dropped).toEqual(['b'])
    expect(engineBudgetStats().heldBytes).toBe(80)
    expect(engineBudgetStats().evictions.get('y')).toBe(1)
    // larger than the budget alone: kept, everything else goes
    const big = {}
    holdEngine(big, 'x', 500, () => dropped.push('big'))
    expect(dropped).toEqual(['b', 'a', 'c'])
    expect(engineBudgetStats().heldBytes).toBe(500)
    releaseEngine(big)
    expect(engineBudgetStats().heldBytes).toBe(0)
  })

  it('drops nothing without a budget, and applies a budget set later at once', () => {
    setEngineMemoryBudget(0)
    const dropped: number[] = []
    const keys = [{}, {}, {}]
    keys.forEach((key, i) => holdEngine(key, 'z', 1_000, () => dropped.push(i)))
    expect(dropped).toEqual([])
    setEngineMemoryBudget(1_500)
    expect(dropped).toEqual([0, 1])
    keys.forEach((key) => releaseEngine(key))
  })
})
