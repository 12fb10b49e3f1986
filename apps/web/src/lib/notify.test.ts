import { notifications } from '@mantine/notifications'
import { describe, expect, it, vi } from 'vitest'
import { NOTIFICATION_DURATION_MS, NOTIFICATION_EXIT_MS, autoCloseFor, notify } from './notify'

describe('notifications (spec 1 §4, §9)', () => {
  it('default 4000 ms, exit 300 ms; persist means no timeout', () => {
    expect(NOTIFICATION_DURATION_MS).toBe(4000)
    expect(NOTIFICATION_EXIT_MS).toBe(300)
    expect(autoCloseFor({})).toBe(4000)
    expect(autoCloseFor({ duration: 1000 })).toBe(1000)
    expect(autoCloseFor({ persist: true, duration: 1000 })).toBe(false)
  })

  it('shows the progress bar by default, not when turned off or persisted', () => {
    const show = vi.spyOn(notifications, 'show').mockReturnValue('id')
    notify({ message: 'a' })
    notify({ message: 'b', progress: false })
    notify({ message: 'c', persist: true })
    expect(show.mock.calls.map(([data]) => data.withAutoCloseProgress)).toEqual([true, false, false])
    expect(show.mock.calls[0]?.[0]).toMatchObject({ autoClose: 4000, color: 'blue', 'data-severity': 'info' })
  })

  it('colours by severity', () => {
    const show = vi.spyOn(notifications, 'show').mockReturnValue('id')
    notify({ message: 'ok', severity: 'success' })
    notify({ message: 'bad', severity: 'error' })
    notify({ message: 'hm', severity: 'warning' })
    expect(show.mock.calls.map(([data]) => data.color)).toEqual(['citrus', 'red', 'yellow'])
  })
})
