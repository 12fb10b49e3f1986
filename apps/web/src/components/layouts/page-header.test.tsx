import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithRouter } from '../../test/render'
import { APP_STATUS } from '../brand/app-status-badge'
import { PageHeader } from './page-header'

describe('PageHeader', () => {
  it("shows the app's status badge beside the title: Price Check is Beta", async () => {
    renderWithRouter(<PageHeader title="Price Check" status={APP_STATUS['Price Check']} description="Compare procedure prices" />)
    const heading = await screen.findByRole('heading', { name: 'Price Check' })
    expect(within(heading.parentElement as HTMLElement).getByText('Beta')).toBeTruthy()
    expect(APP_STATUS).toEqual({ Atlas: 'New', Nova: 'New', 'Price Check': 'Beta' })
  })

  it('shows no badge for an app without a status', async () => {
    renderWithRouter(<PageHeader title="Team Management" />)
    await screen.findByRole('heading', { name: 'Team Management' })
    expect(screen.queryByText('Beta')).toBeNull()
    expect(screen.queryByText('New')).toBeNull()
  })
})
