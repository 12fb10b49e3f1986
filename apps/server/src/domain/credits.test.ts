import { describe, expect, it } from 'vitest'
import { currentCycle, isoDay } from './credits.ts'

const DAY = 24 * 60 * 60 * 1000

describe('credit cycles', () => {
  const created = new Date('2026-01-15T10:30:00.000Z')

  it('starts the first cycle at the company creation', () => {
    const cycle = currentCycle(created, 30, new Date(created.getTime() + 5 * DAY))
    expect(cycle.start).toEqual(created)
    expect(cycle.end).toEqual(new Date(created.getTime() + 30 * DAY))
  })

  it('moves to the next window exactly when renewal_cycle_days have passed', () => {
    expect(currentCycle(created, 30, new Date(created.getTime() + 30 * DAY - 1)).start).toEqual(created)
    expect(currentCycle(created, 30, new Date(created.getTime() + 30 * DAY)).start).toEqual(new Date(created.getTime() + 30 * DAY))
    expect(currentCycle(created, 7, new Date(created.getTime() + 100 * DAY)).start).toEqual(new Date(created.getTime() + 98 * DAY))
  })

  it('treats a clock before the creation as the first cycle', () => {
    expect(currentCycle(created, 30, new Date(created.getTime() - DAY)).start).toEqual(created)
  })

  it('formats the renewal day in UTC', () => {
    expect(isoDay(new Date('2026-12-01T23:59:00.000Z'))).toBe('2026-12-01')
  })
})
