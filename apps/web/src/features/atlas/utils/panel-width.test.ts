import { describe, expect, it } from 'vitest'
import { clampPercent, percentAfterKey, percentAtPointer, percentBounds, QUERY_BUILDER_PANEL } from './panel-width'

describe('query builder width', () => {
  it('is 33 % by default, 20-80 %, at least 280 px, 56 px collapsed (spec 2 §9)', () => {
    expect(QUERY_BUILDER_PANEL).toMatchObject({ defaultPercent: 33, minPercent: 20, maxPercent: 80, minPx: 280, collapsedPx: 56 })
  })

  it('raises the lower bound so the panel keeps 280 px in a narrow container', () => {
    expect(percentBounds(0)).toEqual({ min: 20, max: 80 })
    expect(percentBounds(2000)).toEqual({ min: 20, max: 80 })
    expect(percentBounds(1000)).toEqual({ min: 28, max: 80 })
    // rounded up to a tenth: 280 / 900 = 31.11 %
    expect(percentBounds(900)).toEqual({ min: 31.2, max: 80 })
    // never above the upper bound
    expect(percentBounds(300)).toEqual({ min: 80, max: 80 })
  })

  it('clamps stored values and falls back to the default for anything else', () => {
    expect(clampPercent(47.53)).toBe(47.5)
    expect(clampPercent('41')).toBe(41)
    expect(clampPercent(95)).toBe(80)
    expect(clampPercent(5)).toBe(20)
    expect(clampPercent('abc')).toBe(33)
    expect(clampPercent('')).toBe(33)
    expect(clampPercent(undefined)).toBe(33)
    expect(clampPercent(Number.NaN)).toBe(33)
    expect(clampPercent(25, percentBounds(1000))).toBe(28)
  })

  it('turns a pointer position into a width relative to the container', () => {
    const box = { left: 100, width: 1000 }
    expect(percentAtPointer(600, box)).toBe(50)
    expect(percentAtPointer(1050, box)).toBe(80)
    expect(percentAtPointer(150, box)).toBe(28)
    expect(percentAtPointer(500, { left: 0, width: 0 })).toBe(33)
  })

  it('moves by keys as a window splitter does', () => {
    const bounds = percentBounds(0)
    expect(percentAfterKey('ArrowRight', 33, false, bounds)).toBe(35)
    expect(percentAfterKey('ArrowUp', 33, false, bounds)).toBe(35)
    expect(percentAfterKey('ArrowLeft', 33, false, bounds)).toBe(31)
    expect(percentAfterKey('ArrowDown', 33, false, bounds)).toBe(31)
    expect(percentAfterKey('ArrowRight', 33, true, bounds)).toBe(43)
    expect(percentAfterKey('ArrowLeft', 25, true, bounds)).toBe(20)
    expect(percentAfterKey('ArrowRight', 79, false, bounds)).toBe(80)
    expect(percentAfterKey('Home', 50, false, bounds)).toBe(20)
    expect(percentAfterKey('End', 50, false, bounds)).toBe(80)
    expect(percentAfterKey('Home', 50, false, percentBounds(900))).toBe(31.2)
    expect(percentAfterKey('a', 50, false, bounds)).toBeNull()
    expect(percentAfterKey('Enter', 50, false, bounds)).toBeNull()
  })
})
