import { CARE_DEFAULT_RADIUS_M, type RankingsQuery } from '@citrus/contracts'

/** The search's query parameters (spec 3 §2.1, §2.3): the results and recommendations read them from the URL. */
export const SEARCH_PARAM_NAMES = [
  'zip_code',
  'omni_code',
  'omni_genre',
  'cpt_union_csv',
  'icd10_cm_union_csv',
  'insurance_names_csv',
  'radius_in_m',
  'filter_npis',
] as const

export interface CareSearch {
  zip_code: string
  omni_code: string
  omni_genre: string
  cpt_union_csv: string
  icd10_cm_union_csv: string
  insurance_names_csv: string
  radius_in_m: number
  filter_npis: string
}

export function searchFromParams(params: URLSearchParams): CareSearch {
  const radius = Number(params.get('radius_in_m'))
  return {
    zip_code: params.get('zip_code') ?? '',
    omni_code: params.get('omni_code') ?? '',
    omni_genre: params.get('omni_genre') ?? 'SPECIALTY',
    cpt_union_csv: params.get('cpt_union_csv') ?? '',
    icd10_cm_union_csv: params.get('icd10_cm_union_csv') ?? '',
    insurance_names_csv: params.get('insurance_names_csv') ?? '',
    radius_in_m: Number.isFinite(radius) && radius > 0 ? radius : CARE_DEFAULT_RADIUS_M,
    filter_npis: params.get('filter_npis') ?? '',
  }
}

/**
 * The URL of a search: the seven parameters of spec 3 §2.1 always (an optional one empty when not chosen), filter_npis
 * only when it narrows.
 */
export function searchToParams(search: CareSearch, extra: Record<string, string> = {}): URLSearchParams {
  const params = new URLSearchParams()
  for (const name of SEARCH_PARAM_NAMES) {
    const value = search[name]
    if (name !== 'filter_npis' || value !== '') params.set(name, String(value))
  }
  for (const [key, value] of Object.entries(extra)) params.set(key, value)
  return params
}

/** The rankings query of a search (empty optional parameters left out). */
export function rankingsQueryOf(search: CareSearch): RankingsQuery {
  const query: RankingsQuery = {
    zip_code: search.zip_code,
    omni_code: search.omni_code,
    omni_genre: search.omni_genre,
    radius_in_m: search.radius_in_m,
  }
  if (search.cpt_union_csv) query.cpt_union_csv = search.cpt_union_csv
  if (search.icd10_cm_union_csv) query.icd10_cm_union_csv = search.icd10_cm_union_csv
  if (search.insurance_names_csv) query.insurance_names_csv = search.insurance_names_csv
  if (search.filter_npis) query.filter_npis = search.filter_npis
  return query
}
