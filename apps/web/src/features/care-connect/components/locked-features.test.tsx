import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { notifications } from '@mantine/notifications'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { mockApi } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

describe('care search: region scope and locked features (spec 3 §4.5, §8)', () => {
  it('offers National, shows Custom ZIP list disabled with its tooltip, and a locked card shows the premium toast for 6 s', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    mockApi({
      'GET /company/products': { product_groups: ['CARE_SELECT'] },
      'GET /insurers/': { insurers: ['Aetna'] },
    })
    const show = vi.spyOn(notifications, 'show')
    renderApp('/care-connect-search')
    fireEvent.click(await screen.findByRole('button', { name: /Advanced Filters/ }, { timeout: 8000 }))

    const scope = await screen.findByRole('radiogroup', { name: 'Region scope' }, { timeout: 4000 })
    expect((within(scope).getByRole('radio', { name: 'National' }) as HTMLInputElement).checked).toBe(true)
    const custom = within(scope).getByRole('radio', { name: 'Custom ZIP list' }) as HTMLInputElement
    expect(custom.disabled).toBe(true)
    fireEvent.mouseEnter(screen.getByTestId('custom-zips-scope'))
    expect(await screen.findByText('Upgrade to Citrus Business for custom ZIPs')).toBeTruthy()

    for (const name of ['Procedure codes (HCPCS) (Business+)', 'Medication codes (NDC) (Business+)']) {
      show.mockClear()
      fireEvent.click(screen.getByRole('button', { name }))
      expect(show).toHaveBeenCalledTimes(1)
      expect(show.mock.calls[0]![0]).toMatchObject({ title: 'Premium Feature - Business+', autoClose: 6000 })
    }
    expect((await screen.findAllByText('Premium Feature - Business+')).length).toBeGreaterThan(0)
    expect(screen.getAllByText('Add HCPCS procedure codes to refine your search results').length).toBeGreaterThan(0)
    const learnMore = screen.getAllByRole('link', { name: 'Learn More' })[0] as HTMLAnchorElement
    expect(learnMore.href).toMatch(/^mailto:/)
    // the presets of the locked HCPCS picker (spec 3 §3)
    expect(screen.getByText(/J0178 .*J9035 .*J2778 .*99213 .*99214 .*G0438 .*G0439/)).toBeTruthy()
    show.mockRestore()
  }, 30_000)
})
