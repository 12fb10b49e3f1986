import { act, renderHook } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PAGE_SIZE,
  PAGE_SIZE_OPTIONS,
  clampPage,
  normalizePageSize,
  pageAfterSizeChange,
  pageItems,
  usePagination,
} from './pagination'

describe('pagination rules (spec 1 §4, §9)', () => {
  it('offers 10, 25, 50, 100 with default 25', () => {
    expect(PAGE_SIZE_OPTIONS).toEqual([10, 25, 50, 100])
    expect(DEFAULT_PAGE_SIZE).toBe(25)
  })

  it('accepts only allowed sizes', () => {
    expect(normalizePageSize(50)).toBe(50)
    expect(normalizePageSize(7)).toBe(25)
    expect(normalizePageSize(20, [5, 10, 20], 5)).toBe(20)
    expect(normalizePageSize(25, [5, 10, 20], 5)).toBe(5)
  })

  it('keeps the page in range and resets to 1 for an empty list', () => {
    expect(clampPage(9, 30, 10)).toBe(3)
    expect(clampPage(0, 30, 10)).toBe(1)
    expect(clampPage(4, 0, 10)).toBe(1)
    expect(clampPage(2, 11, 10)).toBe(2)
  })

  it('keeps the first visible item on screen when the page size changes', () => {
    // page 3 of size 10 shows items 20-29; with size 25 item 20 is on page 1
    expect(pageAfterSizeChange(3, 10, 25, 200)).toBe(1)
    // page 4 of size 25 shows 75-99; with size 10 item 75 is on page 8
    expect(pageAfterSizeChange(4, 25, 10, 200)).toBe(8)
    expect(pageAfterSizeChange(5, 10, 50, 200)).toBe(1)
    expect(pageAfterSizeChange(6, 10, 50, 200)).toBe(2)
  })

  it('slices the current page', () => {
    const items = Array.from({ length: 23 }, (_, i) => i)
    expect(pageItems(items, 3, 10)).toEqual([20, 21, 22])
    expect(pageItems(items, 9, 10)).toEqual([20, 21, 22])
  })

  it('usePagination applies the rules as the list changes', () => {
    const { result, rerender } = renderHook(({ total }) => usePagination(total), { initialProps: { total: 200 } })
    expect(result.current.size).toBe(25)
    act(() => result.current.setPage(4))
    expect(result.current.page).toBe(4)
    act(() => result.current.setSize(10))
    expect(result.current).toMatchObject({ page: 8, size: 10 })
    act(() => result.current.setSize(33))
    expect(result.current.size).toBe(25)
    rerender({ total: 30 })
    expect(result.current.page).toBe(2)
    rerender({ total: 0 })
    expect(result.current.page).toBe(1)
  })
})
