/**
 * The query builder's width (spec 2 §2, §9): 33 % of the page by default, collapsible to 56 px, resizable
 * between 20 % and 80 % and never narrower than 280 px. The width is kept as a percentage, so a stored
 * width fits any window.
 */
export const QUERY_BUILDER_PANEL = {
  defaultPercent: 33,
  minPercent: 20,
  maxPercent: 80,
  minPx: 280,
  collapsedPx: 56,
  /** one arrow-key step, and one with Shift held */
  step: 2,
  bigStep: 10,
} as const

export const ATLAS_QUERY_BUILDER_WIDTH_KEY = 'citrus.atlas.queryBuilder.width'

export interface PercentBounds {
  min: number
  max: number
}

/** The allowed percentages for a container this wide (0 when not measured yet: only the percent limits). */
export function percentBounds(containerPx: number): PercentBounds {
  const { minPercent, maxPercent, minPx } = QUERY_BUILDER_PANEL
  // rounded up to a tenth, so a width at the lower bound is never under 280 px
  const pxFloor = containerPx > 0 ? Math.ceil((minPx / containerPx) * 1000) / 10 : 0
  return { min: Math.min(maxPercent, Math.max(minPercent, pxFloor)), max: maxPercent }
}

const round1 = (n: number) => Math.round(n * 10) / 10

/** A percentage held within the bounds (to one decimal); anything that is not a number gives the default. */
export function clampPercent(value: unknown, bounds: PercentBounds = percentBounds(0)): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
  if (!Number.isFinite(n)) return QUERY_BUILDER_PANEL.defaultPercent
  return round1(Math.min(bounds.max, Math.max(bounds.min, n)))
}

/** The width a pointer at clientX gives a left panel starting at the container's left edge. */
export function percentAtPointer(clientX: number, container: { left: number; width: number }): number {
  if (container.width <= 0) return QUERY_BUILDER_PANEL.defaultPercent
  return clampPercent(((clientX - container.left) / container.width) * 100, percentBounds(container.width))
}

/**
 * The width after a key on the separator (the ARIA window-splitter keys): arrows move by a step (Shift: a
 * big step), Home and End go to the limits. Null for any other key.
 */
export function percentAfterKey(key: string, current: number, shift: boolean, bounds: PercentBounds): number | null {
  const step = shift ? QUERY_BUILDER_PANEL.bigStep : QUERY_BUILDER_PANEL.step
  switch (key) {
    case 'ArrowLeft':
    case 'ArrowDown':
      return clampPercent(current - step, bounds)
    case 'ArrowRight':
    case 'ArrowUp':
      return clampPercent(current + step, bounds)
    case 'Home':
      return clampPercent(bounds.min, bounds)
    case 'End':
      return clampPercent(bounds.max, bounds)
    default:
      return null
  }
}
