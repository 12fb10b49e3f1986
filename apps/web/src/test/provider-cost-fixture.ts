import type { ProviderCostResponse } from '@citrus/contracts'

/** A provider cost page answer for web tests (GET /cost-transparency/provider/{npi}). */
export const NPI = '1234567893'

export const providerCostBody: ProviderCostResponse = {
  kind: 'provider',
  provider: {
    npi: NPI,
    full_name: 'Ada Lovelace, MD',
    title: 'MD',
    cms_specialization: 'Family Medicine Physician',
    primary_taxonomy_code: '207Q00000X',
    address: '1 Main St',
    city: 'Houston',
    state: 'TX',
    zip_code: '77004',
    phone_number: null,
    facility_name: 'Houston General Hospital',
    facility_npi: null,
  },
  claim_count: 40,
  estimated_cost_range: { low: 20, median: 55.5, high: 120 },
  patient_cost_range: { low: 1, median: 10, high: 25 },
  visit_types: [
    {
      code: '99213',
      description: 'Returning patient office visit, moderate',
      claim_count: 30,
      avg_list_rate: 120,
      avg_negotiated_rate: 53,
      avg_insurer_rate: 40,
      avg_patient_rate: 13,
      unit_price: { line_count: 30, list: 120, negotiated: 53, insurer: 40, patient: 13 },
      facility_negotiated_rate: 60,
      peer_avg_negotiated_rate: 58.84,
      peer_count: 4,
      affordability: 100,
    },
  ],
  affordability: 100,
  peers: { count: 12, radius_in_m: 50000, specialty: 'Family Medicine Physician' },
  payment_perspective: null,
  listed_price: null,
}
