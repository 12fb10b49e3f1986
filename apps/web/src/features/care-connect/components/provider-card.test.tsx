import type { HcoRanking } from '@citrus/contracts'
import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { rankingProvider } from '../../../test/care-fixtures'
import { renderWithRouter } from '../../../test/render'
import { FacilityCard, ProviderCard } from './provider-card'

const hospital = (samples: number): HcoRanking => ({
  hco_npi: '1500000001',
  hco_id: 101,
  hco_name: 'Bronx General Hospital',
  hco_address: '1 Grand Concourse',
  city: 'Bronx',
  state: 'NY',
  zip_code: '10451',
  latitude: 40.82,
  longitude: -73.92,
  hco_phone_number: '7185550100',
  hco_compile_level_1: 'Hospital',
  institution_type: 'HOSPITALS',
  distance_in_miles: 3,
  final_score: 0.9,
  final_grade: 'A',
  num_hcp_samples: samples,
  task_scores: { distance: 0.8, distance_grade: 'A', quality_of_care: 0.9, quality_of_care_grade: 'A', cost: 0.4, cost_grade: 'C' },
})

describe('Care Connect facility card (issue 33 item 11)', { timeout: 30_000 }, () => {
  it('says 1 clinician, and 12 clinicians, with the phone formatted', async () => {
    const { unmount } = renderWithRouter(<FacilityCard row={hospital(1)} selected={false} onToggle={() => undefined} />)
    expect(await screen.findByText('Hospital · 1 clinician')).toBeTruthy()
    expect(screen.getByText(/\(718\) 555-0100/)).toBeTruthy()
    unmount()
    renderWithRouter(<FacilityCard row={hospital(12)} selected={false} onToggle={() => undefined} />)
    expect(await screen.findByText('Hospital · 12 clinicians')).toBeTruthy()
  })
})

describe("Care Connect provider card: a carrier's payer-file rate (docs/decisions/0081)", { timeout: 30_000 }, () => {
  it('lists the negotiated price it was ranked with and says it is the carrier’s rate', async () => {
    const row = rankingProvider(0)
    // priced by the carrier's file: a negotiated rate and its percentile, no claims figures for the code
    row.features = {
      ...row.features,
      top_procedure_percentiles: [],
      top_diagnosis_percentiles: [],
      avg_initial_price_by_procedure: {},
      avg_negotiated_price_by_procedure: { '99213': 121.95 },
      avg_insurer_price_by_procedure: {},
      avg_patient_price_by_procedure: {},
      negotiated_affordability_percentiles: { '99213': 100 },
      patient_affordability_percentiles: {},
      price_source_by_procedure: { '99213': 'payer_file' },
    }
    renderWithRouter(<ProviderCard row={row} selected={false} onToggle={() => undefined} descriptions={{}} />)
    fireEvent.click(await screen.findByRole('button', { name: 'Details' }))
    fireEvent.click(await screen.findByRole('tab', { name: 'Negotiated Price', hidden: true }))
    expect(await screen.findByText("(carrier's rate)")).toBeTruthy()
    expect(screen.getByText('$121.95')).toBeTruthy()
  })
})
