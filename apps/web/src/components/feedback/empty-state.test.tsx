import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithRouter } from '../../test/render'
import { EmptyState, emptyListMessage, emptyListTitle } from './empty-state'
import { FullScreenLoader, InlineLoader } from './loading'

describe('empty states and loaders', () => {
  it("words empty lists 'No {items} Found' / 'There are no {items} to display. ...'", () => {
    expect(emptyListTitle('Providers')).toBe('No Providers Found')
    expect(emptyListMessage('Providers')).toBe('There are no Providers to display. Try adjusting your filters or search criteria.')
    renderWithRouter(<EmptyState type="no-results" items="Providers" />)
    expect(screen.getByText('No Providers Found')).toBeTruthy()
  })

  it.each(['no-results', 'no-data', 'unauthorized', 'access-required', 'error', 'info', 'custom'] as const)(
    'renders type %s in every variant',
    (type) => {
      for (const variant of ['card', 'inline', 'fullscreen'] as const) {
        const view = renderWithRouter(<EmptyState type={type} variant={variant} title={`${type} title`} />)
        expect(view.container.querySelector(`[data-empty-state="${type}"]`)).not.toBeNull()
        view.unmount()
      }
    },
  )

  it("shows 'Loading...' by default", () => {
    renderWithRouter(
      <>
        <FullScreenLoader />
        <InlineLoader />
      </>,
    )
    expect(screen.getAllByText('Loading...')).toHaveLength(2)
  })
})
