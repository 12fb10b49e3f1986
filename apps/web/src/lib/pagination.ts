import { useCallback, useMemo, useState } from 'react'

/** Shared list page sizes (spec 1 §9): 10, 25, 50, 100 with default 25. */
export const PAGE_SIZE_OPTIONS = [10, 25, 50, 100] as const
export const DEFAULT_PAGE_SIZE = 25

/** A page size must be one of the allowed sizes; anything else falls back to the default. */
export function normalizePageSize(
  size: number,
  options: readonly number[] = PAGE_SIZE_OPTIONS,
  fallback: number = DEFAULT_PAGE_SIZE,
): number {
  if (options.includes(size)) return size
  return options.includes(fallback) ? fallback : (options[0] ?? fallback)
}

export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / size))
}

/** The page stays in range and is 1 when the list is empty (spec 1 §4). Pages are 1-based. */
export function clampPage(page: number, total: number, size: number): number {
  if (total <= 0 || !Number.isFinite(page)) return 1
  return Math.min(Math.max(1, Math.floor(page)), pageCount(total, size))
}

/** Changing the page size keeps the first visible item on screen. */
export function pageAfterSizeChange(page: number, oldSize: number, newSize: number, total: number): number {
  const firstIndex = (clampPage(page, total, oldSize) - 1) * oldSize
  return clampPage(Math.floor(firstIndex / newSize) + 1, total, newSize)
}

export function pageItems<T>(items: readonly T[], page: number, size: number): T[] {
  const current = clampPage(page, items.length, size)
  return items.slice((current - 1) * size, current * size)
}

/** Page and page-size state for a list of `total` items, applying the rules above. */
export function usePagination(total: number, options: { initialSize?: number; sizes?: readonly number[] } = {}) {
  const sizes = options.sizes ?? PAGE_SIZE_OPTIONS
  const [size, setSizeState] = useState(() => normalizePageSize(options.initialSize ?? DEFAULT_PAGE_SIZE, sizes))
  const [rawPage, setRawPage] = useState(1)
  const page = clampPage(rawPage, total, size)

  // keep the stored page in range as the list changes (adjusted while rendering, not in an effect),
  // so a list that empties and refills starts again from page 1
  if (page !== rawPage) setRawPage(page)

  const setPage = useCallback((next: number) => setRawPage(clampPage(next, total, size)), [total, size])
  const setSize = useCallback(
    (next: number) => {
      const allowed = normalizePageSize(next, sizes)
      setRawPage(pageAfterSizeChange(page, size, allowed, total))
      setSizeState(allowed)
    },
    [page, size, sizes, total],
  )

  return useMemo(
    () => ({ page, size, sizes, totalPages: pageCount(total, size), setPage, setSize }),
    [page, size, sizes, total, setPage, setSize],
  )
}
