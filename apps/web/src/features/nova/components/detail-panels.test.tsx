import type { NovaInsight } from '@citrus/contracts'
import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithRouter } from '../../../test/render'
import { HealthSystemPanel, ProviderPanel } from './detail-panels'

const prescriber = (npi: string, crofab: number, anavip: number) => ({
  name: `Dr ${npi}`,
  npi,
  facility_name: null,
  city: 'Tucson',
  state: 'AZ',
  cms_specialization: 'Emergency Medicine',
  snake_envenominations_initials_5yr: crofab + anavip,
  crofab_patients_5yr: crofab,
  anavip_patients_5yr: anavip,
})

function insight(entity_type: NovaInsight['entity_type'], entity: Partial<NovaInsight['entity']>): NovaInsight {
  return {
    entity_type,
    account_type: entity_type === 'HEALTH_SYSTEM' ? 'HEALTH_SYSTEM' : null,
    citrus_id: 'X1',
    display_name: 'Mercy Health',
    parent_citrus_id: null,
    territoryLevel: null,
    entity: { id: 'X1', citrus_id: 'X1', name: 'Mercy Health', ...entity },
    badges: [],
    additional_metadata: [],
    summary_md: '',
    metrics: {},
    payer_mix: [],
    top_crofab_hcps: [prescriber('1000000001', 1, 0), prescriber('1000000002', 3, 0)],
  }
}

describe('Nova detail panels (issue 33 items 10, 11)', { timeout: 30_000 }, () => {
  it("shows a health system's phones as (xxx) xxx-xxxx and 1 patient, not 1 patients", async () => {
    renderWithRouter(<HealthSystemPanel insight={insight('HEALTH_SYSTEM', { phone_numbers: ['2745550112', '+1 (520) 555-0199'] })} />)
    expect(await screen.findByText('(274) 555-0112, (520) 555-0199')).toBeTruthy()
    expect(screen.getByText('1 patient')).toBeTruthy()
    expect(screen.getByText('3 patients')).toBeTruthy()
    expect(screen.queryByText(/2745550112/)).toBeNull()
  })

  it("shows a provider's phone formatted, and a dash without one", async () => {
    const { unmount } = renderWithRouter(<ProviderPanel insight={insight('PROVIDER', { phone_number: '5205550142' })} />)
    expect(await screen.findByText('(520) 555-0142')).toBeTruthy()
    unmount()
    renderWithRouter(<ProviderPanel insight={insight('PROVIDER', { phone_number: null })} />)
    await screen.findByText('Phone')
    expect(screen.getByText('Phone').nextElementSibling?.textContent).toBe('—')
  })
})
