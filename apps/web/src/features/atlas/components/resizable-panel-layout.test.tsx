import { act, fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { renderWithRouter } from '../../../test/render'
import { ResizablePanelLayout, STACKED_PANELS_QUERY } from './resizable-panel-layout'

const WIDTH_KEY = 'test.panel.width'
const COLLAPSED_KEY = 'test.panel.collapsed'

function layout() {
  return (
    <ResizablePanelLayout
      left={<input aria-label="Condition" />}
      right={<p>results</p>}
      panelLabel="query builder"
      widthKey={WIDTH_KEY}
      collapsedKey={COLLAPSED_KEY}
      header={{ title: 'Atlas Search' }}
    />
  )
}

const separator = () => screen.getByRole('separator', { name: 'Resize query builder' })
const panel = () => screen.getByTestId('resizable-panel')

/** jsdom lays nothing out: give the panels' container a box. */
function measureContainer(left: number, width: number) {
  const container = separator().parentElement!
  container.getBoundingClientRect = () => ({
    left,
    width,
    top: 0,
    height: 600,
    right: left + width,
    bottom: 600,
    x: left,
    y: 0,
    toJSON: () => ({}),
  })
}

describe('ResizablePanelLayout', () => {
  it('starts at 33 % with an accessible vertical separator', () => {
    renderWithRouter(layout())
    const sep = separator()
    expect(sep.getAttribute('aria-orientation')).toBe('vertical')
    expect(sep.getAttribute('aria-valuenow')).toBe('33')
    expect(sep.getAttribute('aria-valuemin')).toBe('20')
    expect(sep.getAttribute('aria-valuemax')).toBe('80')
    expect(sep.getAttribute('aria-valuetext')).toBe('query builder 33% wide')
    expect(sep.tabIndex).toBe(0)
    expect(sep.getAttribute('aria-controls')).toBe(panel().id)
    // its own focus indicator (a coloured line) replaces the outline
    expect(sep.getAttribute('data-active')).toBe('false')
    fireEvent.focus(sep)
    expect(sep.getAttribute('data-active')).toBe('true')
    fireEvent.blur(sep)
    expect(sep.getAttribute('data-active')).toBe('false')
    expect(panel().getAttribute('data-width-percent')).toBe('33')
    expect(panel().getAttribute('data-collapsed')).toBe('false')
    expect(screen.getByText('Atlas Search')).toBeDefined()
    expect(screen.getByText('results')).toBeDefined()
  })

  it('resizes with the keyboard within 20-80 % and stores the width', () => {
    renderWithRouter(layout())
    const sep = separator()
    fireEvent.keyDown(sep, { key: 'ArrowRight' })
    expect(sep.getAttribute('aria-valuenow')).toBe('35')
    expect(localStorage.getItem(WIDTH_KEY)).toBe('35')
    fireEvent.keyDown(sep, { key: 'ArrowLeft', shiftKey: true })
    expect(sep.getAttribute('aria-valuenow')).toBe('25')
    fireEvent.keyDown(sep, { key: 'Home' })
    expect(sep.getAttribute('aria-valuenow')).toBe('20')
    fireEvent.keyDown(sep, { key: 'ArrowLeft' })
    expect(sep.getAttribute('aria-valuenow')).toBe('20')
    fireEvent.keyDown(sep, { key: 'End' })
    expect(sep.getAttribute('aria-valuenow')).toBe('80')
    fireEvent.keyDown(sep, { key: 'ArrowRight', shiftKey: true })
    expect(sep.getAttribute('aria-valuenow')).toBe('80')
    expect(localStorage.getItem(WIDTH_KEY)).toBe('80')
    expect(panel().getAttribute('data-width-percent')).toBe('80')
  })

  it('resizes by dragging the separator, keeping 280 px, and stores the width when released', () => {
    renderWithRouter(layout())
    measureContainer(100, 1000)
    const sep = separator()
    fireEvent.pointerDown(sep, { button: 0, pointerId: 1, clientX: 430 })
    fireEvent.pointerMove(sep, { pointerId: 1, clientX: 600 })
    expect(sep.getAttribute('aria-valuenow')).toBe('50')
    // not stored until the pointer is released
    expect(localStorage.getItem(WIDTH_KEY)).toBe('33')
    fireEvent.pointerMove(sep, { pointerId: 1, clientX: 150 })
    // 280 px of 1000 px
    expect(sep.getAttribute('aria-valuenow')).toBe('28')
    fireEvent.pointerMove(sep, { pointerId: 1, clientX: 1500 })
    expect(sep.getAttribute('aria-valuenow')).toBe('80')
    fireEvent.pointerMove(sep, { pointerId: 1, clientX: 550 })
    fireEvent.pointerUp(sep, { pointerId: 1, clientX: 550 })
    expect(sep.getAttribute('aria-valuenow')).toBe('45')
    expect(localStorage.getItem(WIDTH_KEY)).toBe('45')
    // a move without a pressed pointer does nothing
    fireEvent.pointerMove(sep, { pointerId: 1, clientX: 900 })
    expect(sep.getAttribute('aria-valuenow')).toBe('45')
  })

  it('gives the default width back on a double click', () => {
    localStorage.setItem(WIDTH_KEY, '60')
    renderWithRouter(layout())
    expect(separator().getAttribute('aria-valuenow')).toBe('60')
    fireEvent.doubleClick(separator())
    expect(separator().getAttribute('aria-valuenow')).toBe('33')
    expect(localStorage.getItem(WIDTH_KEY)).toBe('33')
  })

  it('reads the stored width back on a new page, clamped, and ignores garbage', () => {
    localStorage.setItem(WIDTH_KEY, '47.5')
    const first = renderWithRouter(layout())
    expect(separator().getAttribute('aria-valuenow')).toBe('47.5')
    first.unmount()
    localStorage.setItem(WIDTH_KEY, '95')
    const second = renderWithRouter(layout())
    expect(separator().getAttribute('aria-valuenow')).toBe('80')
    second.unmount()
    localStorage.setItem(WIDTH_KEY, 'wide')
    renderWithRouter(layout())
    expect(separator().getAttribute('aria-valuenow')).toBe('33')
  })

  it('collapses to 56 px with the button, Enter on the separator or Ctrl+B, keeps the form, and remembers it', () => {
    localStorage.setItem(WIDTH_KEY, '40')
    const view = renderWithRouter(layout())
    fireEvent.change(screen.getByLabelText('Condition'), { target: { value: 'I10' } })
    fireEvent.click(screen.getByRole('button', { name: 'Collapse query builder' }))
    expect(panel().getAttribute('data-collapsed')).toBe('true')
    expect(panel().style.width).toBe('56px')
    expect(screen.queryByRole('separator')).toBeNull()
    expect(localStorage.getItem(COLLAPSED_KEY)).toBe('true')
    const expand = screen.getByRole('button', { name: 'Expand query builder' })
    expect(expand.getAttribute('aria-expanded')).toBe('false')
    fireEvent.click(expand)
    expect((screen.getByLabelText('Condition') as HTMLInputElement).value).toBe('I10')
    fireEvent.click(screen.getByRole('button', { name: 'Collapse query builder' }))
    view.unmount()

    // a new page opens collapsed
    renderWithRouter(layout())
    expect(panel().getAttribute('data-collapsed')).toBe('true')
    fireEvent.click(screen.getByRole('button', { name: 'Expand query builder' }))
    expect(panel().getAttribute('data-collapsed')).toBe('false')
    expect(separator().getAttribute('aria-valuenow')).toBe('40')
    expect(localStorage.getItem(COLLAPSED_KEY)).toBe('false')

    fireEvent.keyDown(separator(), { key: 'Enter' })
    expect(panel().getAttribute('data-collapsed')).toBe('true')
    act(() => {
      document.documentElement.dispatchEvent(new KeyboardEvent('keydown', { key: 'b', code: 'KeyB', ctrlKey: true, bubbles: true }))
    })
    expect(panel().getAttribute('data-collapsed')).toBe('false')
  })

  it('stacks the query builder above the results on a narrow screen: full width, no separator, still collapsible', () => {
    const matchMedia = window.matchMedia
    window.matchMedia = vi.fn((query: string) => ({ ...matchMedia(query), matches: query === STACKED_PANELS_QUERY }))
    try {
      localStorage.removeItem(COLLAPSED_KEY)
      renderWithRouter(layout())
      expect(screen.queryByRole('separator')).toBeNull()
      expect(panel().style.width).toBe('100%')
      expect(panel().getAttribute('data-width-percent')).toBeNull()
      expect(panel().parentElement!.getAttribute('data-stacked')).toBe('true')
      fireEvent.click(screen.getByRole('button', { name: 'Collapse query builder' }))
      expect(panel().getAttribute('data-collapsed')).toBe('true')
      expect(panel().style.width).toBe('100%')
      expect(screen.getByText('results')).toBeDefined()
    } finally {
      window.matchMedia = matchMedia
    }
  })
})
