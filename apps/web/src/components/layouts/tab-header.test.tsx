import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { renderWithRouter } from '../../test/render'
import { TabHeader } from './tab-header'
import { TwoPanelLayout } from './two-panel-layout'

const TABS = [
  { id: 'overview', label: 'Overview', badge: 3 },
  { id: 'insights', label: 'Insights', disabled: true },
  { id: 'hub', label: 'Hub' },
  { id: 'nova', label: 'Nova', roles: ['citrus'] as const },
]

describe('TabHeader', () => {
  it('selects the tab from the URL parameter, falling back to the first enabled tab', () => {
    renderWithRouter(<TabHeader tabs={TABS} />, { path: '/x?tab=hub' })
    expect(screen.getByRole('tab', { name: 'Hub' }).getAttribute('aria-selected')).toBe('true')
    expect(screen.queryByRole('tab', { name: 'Nova' })).toBeNull()
  })

  it('falls back when the URL names a disabled tab, and shows badges', () => {
    renderWithRouter(<TabHeader tabs={TABS} />, { path: '/x?tab=insights' })
    expect(screen.getByRole('tab', { name: /Overview/ }).getAttribute('aria-selected')).toBe('true')
    expect(screen.getByRole('tab', { name: /Overview/ }).textContent).toContain('3')
    expect(
      screen.getByRole('tab', { name: 'Insights' }).hasAttribute('disabled') ||
        screen.getByRole('tab', { name: 'Insights' }).getAttribute('data-disabled'),
    ).toBeTruthy()
  })

  it('writes the tab to the URL (custom parameter) and reports changes', () => {
    const onChange = vi.fn()
    const { router } = renderWithRouter(<TabHeader tabs={TABS} param="view" onChange={onChange} />, { path: '/x' })
    fireEvent.click(screen.getByRole('tab', { name: 'Hub' }))
    expect(router.state.location.search).toBe('?view=hub')
    expect(onChange).toHaveBeenCalledWith('hub')
  })

  it('switches tabs with Ctrl+Left and Ctrl+Right, skipping disabled ones', () => {
    const { router } = renderWithRouter(<TabHeader tabs={TABS} />, { path: '/x?tab=overview' })
    fireEvent.keyDown(document.documentElement, { key: 'ArrowRight', code: 'ArrowRight', ctrlKey: true })
    expect(router.state.location.search).toBe('?tab=hub')
    fireEvent.keyDown(document.documentElement, { key: 'ArrowLeft', code: 'ArrowLeft', ctrlKey: true })
    expect(router.state.location.search).toBe('?tab=overview')
  })
})

describe('TwoPanelLayout', () => {
  it('toggles the left panel with Ctrl+B and Cmd+B and shows the header card', () => {
    renderWithRouter(
      <TwoPanelLayout
        left={<div>Query builder</div>}
        right={<div>Results</div>}
        header={{ title: 'Search', status: 'Ready', notice: 'Data as of today' }}
      />,
    )
    expect(screen.getByText('Ready')).toBeTruthy()
    expect(screen.getByText('Data as of today')).toBeTruthy()
    expect(screen.getByText('Query builder')).toBeTruthy()
    fireEvent.keyDown(document.documentElement, { key: 'b', code: 'KeyB', ctrlKey: true })
    expect(screen.queryByText('Query builder')).toBeNull()
    fireEvent.keyDown(document.documentElement, { key: 'b', code: 'KeyB', metaKey: true })
    expect(screen.getByText('Query builder')).toBeTruthy()
    expect(screen.getByText('Results')).toBeTruthy()
  })
})
