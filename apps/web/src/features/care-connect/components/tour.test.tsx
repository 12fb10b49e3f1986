import { MantineProvider } from '@mantine/core'
import { act, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { TOUR_RETRY_DELAY_MS, TOUR_START_DELAY_MS, useTour } from './tour'

const STEPS = [
  { target: 'first', title: 'First step', body: 'One' },
  { target: 'second', title: 'Second step', body: 'Two' },
]

function Harness({ flow }: { flow: string }) {
  const tour = useTour(flow, STEPS)
  const [late, setLate] = useState(false)
  return (
    <MantineProvider>
      <div data-tour="first" />
      {late && <div data-tour="second" />}
      <button onClick={() => tour.start()}>start</button>
      <button onClick={() => setLate(true)}>late</button>
      {tour.view}
    </MantineProvider>
  )
}

describe('useTour (spec 3 §4.6)', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  it('starts only once every target is on the page; until then it waits, with one warning', async () => {
    vi.useFakeTimers()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    render(<Harness flow="tour-test-late" />)
    act(() => screen.getByText('start').click())
    await act(async () => vi.advanceTimersByTime(TOUR_START_DELAY_MS + 3 * TOUR_RETRY_DELAY_MS))
    expect(screen.queryByTestId('tour-step')).toBeNull()
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]![0])).toMatch(/not every target is on the page yet/)

    act(() => screen.getByText('late').click())
    await act(async () => vi.advanceTimersByTime(TOUR_RETRY_DELAY_MS))
    expect(screen.getByTestId('tour-step').textContent).toContain('First step')
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('starts at once when every target is there', async () => {
    vi.useFakeTimers()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    render(<Harness flow="tour-test-ready" />)
    act(() => screen.getByText('late').click())
    act(() => screen.getByText('start').click())
    await act(async () => vi.advanceTimersByTime(TOUR_START_DELAY_MS))
    expect(screen.getByTestId('tour-step').textContent).toContain('First step')
    expect(warn).not.toHaveBeenCalled()
  })
})
