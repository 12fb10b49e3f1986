import { FEEDBACK_ISSUE_OPTIONS } from '@citrus/contracts'
import { act, fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { malformed, mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { FEEDBACK_BANNER_MS, FeedbackButton } from './feedback-button'

async function openAndSubmit() {
  fireEvent.click(screen.getByRole('button', { name: 'Feedback' }))
  await screen.findByRole('dialog')
  fireEvent.click(screen.getByRole('radio', { name: '5' }))
  fireEvent.click(screen.getByRole('checkbox', { name: 'Slow performance' }))
  fireEvent.change(screen.getByLabelText('Additional feedback'), { target: { value: '  Loving it  ' } })
  fireEvent.click(screen.getByRole('button', { name: 'Submit Feedback' }))
}

describe('feedback', () => {
  it('offers rating 1-5 (default 3) and the issue options of spec 1 §9', async () => {
    mockApi()
    renderWithRouter(<FeedbackButton />)
    fireEvent.click(screen.getByRole('button', { name: 'Feedback' }))
    await screen.findByRole('dialog')
    expect((screen.getByRole('radio', { name: '3' }) as HTMLInputElement).checked).toBe(true)
    for (const value of ['1', '2', '4', '5']) expect(screen.getByRole('radio', { name: value })).toBeTruthy()
    expect(FEEDBACK_ISSUE_OPTIONS).toHaveLength(7)
    for (const label of [
      'Search not relevant',
      'Difficulty navigating',
      'Slow performance',
      'Inaccurate results',
      'Missing features',
      'Crashes or bugs',
      'Other',
    ]) {
      expect(screen.getByRole('checkbox', { name: label })).toBeTruthy()
    }
  })

  it("posts {rating, issues, feedback} and shows 'Feedback submitted successfully!' for 5 seconds", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const api = mockApi({ 'POST /feedback': { id: 1, message: 'ok', message_id: null } })
    renderWithRouter(<FeedbackButton />)
    await openAndSubmit()
    expect(await screen.findByText('Feedback submitted successfully!')).toBeTruthy()
    expect(api.callsTo('POST /feedback')[0]?.body).toEqual({ rating: 5, issues: ['slow performance'], feedback: 'Loving it' })
    act(() => vi.advanceTimersByTime(FEEDBACK_BANNER_MS - 100))
    expect(screen.queryByText('Feedback submitted successfully!')).not.toBeNull()
    act(() => vi.advanceTimersByTime(200))
    expect(screen.queryByText('Feedback submitted successfully!')).toBeNull()
    expect(FEEDBACK_BANNER_MS).toBe(5000)
  })

  it('still shows the banner when sending failed and records feedback_submission_failed', async () => {
    const api = mockApi({ 'POST /feedback': malformed({}, 500) })
    renderWithRouter(<FeedbackButton />)
    await openAndSubmit()
    expect(await screen.findByText('Feedback submitted successfully!')).toBeTruthy()
    const events = api.callsTo('POST /analytics/events').map((call) => call.body)
    expect(events).toContainEqual({ events: [{ name: 'error_occurred', properties: { key: 'feedback_submission_failed' } }] })
  })

  it('is an icon named Feedback on a phone, the labelled button elsewhere', async () => {
    mockApi()
    const matchMedia = window.matchMedia
    window.matchMedia = vi.fn((query: string) => ({ ...matchMedia(query), matches: query === '(max-width: 47.99em)' }))
    try {
      const view = renderWithRouter(<FeedbackButton />)
      const button = screen.getByRole('button', { name: 'Feedback' })
      expect(button.textContent).toBe('')
      fireEvent.click(button)
      expect(await screen.findByRole('dialog')).toBeTruthy()
      view.unmount()
    } finally {
      window.matchMedia = matchMedia
    }
    renderWithRouter(<FeedbackButton />)
    expect(screen.getByRole('button', { name: 'Feedback' }).textContent).toBe('Feedback')
  })
})
