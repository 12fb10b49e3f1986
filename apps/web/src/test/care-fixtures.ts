import type { HcpRanking, RankingsResponse } from '@citrus/contracts'

/** Care Select answers for the client's tests: a clinician's ranking (index varies the NPI, name, place and score). */
export const RANKING_SCORES = {
  distance: 0.9,
  distance_grade: 'A',
  quality_of_care: 0.6,
  quality_of_care_grade: 'B',
  cost: 0.5,
  cost_grade: 'B',
} as const

export function rankingProvider(index: number): HcpRanking {
  return {
    hcp_entity: {
      npi: `10000000${String(index).padStart(2, '0')}`,
      full_name: `Dr Test ${index}`,
      title: 'MD',
      cms_specialization: 'Family Medicine Physician',
      provider_type: 'MD_OR_DO',
      address: '1 Main St',
      city: 'Bronx',
      state: 'NY',
      zip_code: '10460',
      latitude: 40.83 + index / 1000,
      longitude: -73.88,
      phone_number: '5395550100',
      hco_npi: null,
      hco_name: null,
      hco_compile_level_1: null,
      medical_school: null,
      years_in_practice: 5,
      gender: 'F',
      website: null,
      accepting_new_patients: true,
      aggregated_insurance_networks_v1: { Aetna: true },
      directory_confidence: 0.9,
      last_verified_at: '2025-12-01',
    },
    final_score: 0.9 - index / 100,
    final_grade: 'A',
    in_network: null,
    task_scores: RANKING_SCORES,
    features: {
      distance_in_miles: 1 + index,
      given_diagnosis_counts: {},
      given_procedure_counts: {},
      topical_diagnosis_counts: { I10: 3 },
      topical_procedure_counts: { '99213': 4 },
      top_procedure_percentiles: [{ code: '99213', description: 'Office visit', count: 4, percentile: 50 }],
      top_diagnosis_percentiles: [{ code: 'I10', description: 'Hypertension', count: 3, percentile: 40 }],
      avg_initial_price_by_procedure: { '99213': 150 },
      avg_negotiated_price_by_procedure: { '99213': 90 },
      avg_insurer_price_by_procedure: { '99213': 60 },
      avg_patient_price_by_procedure: { '99213': 30 },
      negotiated_affordability_percentiles: { '99213': 50 },
      patient_affordability_percentiles: { '99213': 50 },
      relevant_claim_count: 7,
      last_year_patient_count: 5,
      last_month_new_patient_count: 1,
    },
    badges: ['NEW_PATIENT_AVAILABLE'],
  }
}

/** An answer with nothing found (the Bronx, Family Medicine). */
export const EMPTY_RANKINGS: RankingsResponse = {
  search_lat: 40.83,
  search_long: -73.88,
  state: 'NY',
  city: 'Bronx',
  radius_in_m: 48280,
  common_ranking_metadata: {
    provider_types_to_counts: {},
    institution_types_to_counts: {},
    total_hcp_candidates: 0,
    total_hco_candidates: 0,
    diagnosis_code_descriptions: {},
    procedure_code_descriptions: {},
    taxonomy_code_descriptions: { '207Q00000X': 'Family Medicine' },
    relevant_diagnosis_codes: [],
    relevant_procedure_codes: [],
    codes_source: 'typical',
    weights: { quality_of_care: 0.5, cost: 0.3, distance: 0.2 },
  },
  hcp_rankings: [],
  hco_rankings: [],
}
