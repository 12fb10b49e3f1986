/**
 * The synthetic tables' columns and how one generated entity becomes the values of its row, shared by the
 * loader (seed.ts) and its generator threads (seed-worker.ts), so both write exactly the same rows.
 */
import {
  copyTextField,
  copyTextRow,
  type ClaimBundle,
  type ClaimDiagnosisRow,
  type ClaimProcedureRow,
  type CopyValue,
  type FacilityPriceRow,
  type FacilityRow,
  type PharmacyClaimRow,
  type ProviderCopyRow,
  type ProviderRow,
  type SyntheticDataset,
} from '@citrus/data-kit'

export const PROVIDER_COLUMNS = ['id', 'npi', 'first_name', 'middle_name', 'last_name', 'full_name', 'title', 'provider_kind', 'primary_taxonomy_code', 'cms_specialization', 'gender', 'age', 'years_in_practice', 'medical_school', 'phone_number', 'website', 'address', 'city', 'state', 'zip_code', 'county_fips', 'latitude', 'longitude', 'facility_id', 'accepting_new_patients', 'aggregated_insurance_networks_v1', 'last_verified_at', 'confidence', 'source'] as const
export const PATIENT_COLUMNS = ['id', 'age', 'birth_year', 'gender', 'zip_code', 'state', 'county_fips', 'payer_type', 'insurer_name'] as const
export const CLAIM_COLUMNS = ['id', 'patient_id', 'service_date', 'rendering_npi', 'facility_id', 'facility_npi', 'payer_type', 'insurer_name', 'place_of_service', 'list_amount', 'negotiated_amount', 'insurer_amount', 'patient_amount'] as const
export const DIAGNOSIS_COLUMNS = ['claim_id', 'patient_id', 'sequence', 'icd10_code'] as const
export const LINE_COLUMNS = ['claim_id', 'patient_id', 'line_number', 'procedure_code', 'units', 'list_amount', 'negotiated_amount', 'insurer_amount', 'patient_amount'] as const
export const PHARMACY_COLUMNS = ['id', 'patient_id', 'fill_date', 'prescriber_npi', 'facility_npi', 'ndc', 'drug_name', 'units', 'days_supply', 'payer_type', 'insurer_name', 'list_amount', 'negotiated_amount', 'insurer_amount', 'patient_amount'] as const
export const PRICE_COLUMNS = ['facility_id', 'procedure_code', 'code_type', 'description', 'setting', 'payer_name', 'plan_name', 'gross_charge', 'discounted_cash', 'negotiated_dollar', 'negotiated_percentage', 'methodology', 'median_amount', 'p10_amount', 'p90_amount', 'source'] as const

export function pick<T extends object>(row: T, columns: readonly string[]): CopyValue[] {
  return columns.map((c) => (row as Record<string, unknown>)[c] as CopyValue)
}

/** A provider's values; the insurer networks an object (JSON-encoded by the writer) or already their JSON text. */
export function providerValues(p: ProviderRow | ProviderCopyRow): CopyValue[] {
  return [p.id, p.npi, p.first_name, p.middle_name || null, p.last_name, p.full_name, p.title || null, p.provider_kind, p.primary_taxonomy_code, p.cms_specialization, p.gender, p.age, p.years_in_practice, p.medical_school, p.phone_number, p.website, p.address_line_1, p.city, p.state, p.zip_code, p.county_fips, p.latitude, p.longitude, p.facility_id, p.accepting_new_patients, p.aggregated_insurance_networks_v1, p.last_verified_at, p.confidence, 'synthetic']
}

/** The claim's row; `facilityIdByNpi` resolves the billing facility's NPI to its id. */
export function claimValues(bundle: ClaimBundle, facilityIdByNpi: ReadonlyMap<string, number>): CopyValue[] {
  const c = bundle.claim
  return [c.id, c.patient_id, c.service_date, c.rendering_npi, c.facility_npi ? (facilityIdByNpi.get(c.facility_npi) ?? null) : null, c.facility_npi, c.payer_type, c.insurer_name, c.place_of_service, c.list_amount, c.negotiated_amount, c.insurer_amount, c.patient_amount]
}

export function priceValues(r: FacilityPriceRow): CopyValue[] {
  return [r.facility_id, r.procedure_code, /^\d/.test(r.procedure_code) ? 'CPT' : 'HCPCS', r.description, r.setting, r.payer_name ?? '', r.plan_name ?? '', r.gross_charge, r.discounted_cash, r.negotiated_dollar, r.negotiated_percentage, r.methodology, r.median_amount, r.p10_amount, r.p90_amount, 'synthetic']
}

/** Facilities that publish price files: Price Check compares hospitals, surgery and imaging centres. */
export const publishesPrices = (facilityType: string) => facilityType !== 'urgent_care' && facilityType !== 'clinic'

/** Provider `index`'s row as COPY text (the generator threads' unit of work). */
export function providerText(ds: SyntheticDataset, index: number): string {
  return copyTextRow(providerValues(ds.providerForCopy(index)))
}

/** The COPY text of one patient's claims and of what the loader spills beside them. */
export interface PatientTexts {
  claims: string
  claimRows: number
  diagnoses: string
  diagnosisRows: number
  lines: string
  lineRows: number
  fills: string
  fillRows: number
}

const f = copyTextField

/** copyTextRow(claimValues(bundle, facilityIdByNpi)), field by field without the array. */
export function claimText(bundle: ClaimBundle, facilityIdByNpi: ReadonlyMap<string, number>): string {
  const c = bundle.claim
  const facilityId = c.facility_npi ? (facilityIdByNpi.get(c.facility_npi) ?? null) : null
  return `${f(c.id)}\t${f(c.patient_id)}\t${f(c.service_date)}\t${f(c.rendering_npi)}\t${f(facilityId)}\t${f(c.facility_npi)}\t${f(c.payer_type)}\t${f(c.insurer_name)}\t${f(c.place_of_service)}\t${f(c.list_amount)}\t${f(c.negotiated_amount)}\t${f(c.insurer_amount)}\t${f(c.patient_amount)}\n`
}

/** copyTextRow(pick(d, DIAGNOSIS_COLUMNS)) */
export function diagnosisText(d: ClaimDiagnosisRow): string {
  return `${f(d.claim_id)}\t${f(d.patient_id)}\t${f(d.sequence)}\t${f(d.icd10_code)}\n`
}

/** copyTextRow(pick(l, LINE_COLUMNS)) */
export function lineText(l: ClaimProcedureRow): string {
  return `${f(l.claim_id)}\t${f(l.patient_id)}\t${f(l.line_number)}\t${f(l.procedure_code)}\t${f(l.units)}\t${f(l.list_amount)}\t${f(l.negotiated_amount)}\t${f(l.insurer_amount)}\t${f(l.patient_amount)}\n`
}

/** copyTextRow(pick(r, PHARMACY_COLUMNS)) */
export function fillText(r: PharmacyClaimRow): string {
  return `${f(r.id)}\t${f(r.patient_id)}\t${f(r.fill_date)}\t${f(r.prescriber_npi)}\t${f(r.facility_npi)}\t${f(r.ndc)}\t${f(r.drug_name)}\t${f(r.units)}\t${f(r.days_supply)}\t${f(r.payer_type)}\t${f(r.insurer_name)}\t${f(r.list_amount)}\t${f(r.negotiated_amount)}\t${f(r.insurer_amount)}\t${f(r.patient_amount)}\n`
}

/** Patient `index`'s claims, their diagnoses and lines, and the patient's pharmacy fills, as COPY text. */
export function patientTexts(ds: SyntheticDataset, index: number, facilityIdByNpi: ReadonlyMap<string, number>): PatientTexts {
  const patient = ds.patient(index)
  const out: PatientTexts = { claims: '', claimRows: 0, diagnoses: '', diagnosisRows: 0, lines: '', lineRows: 0, fills: '', fillRows: 0 }
  for (const bundle of ds.claimsOfPatient(patient)) {
    out.claims += claimText(bundle, facilityIdByNpi)
    out.claimRows++
    for (const d of bundle.diagnoses) out.diagnoses += diagnosisText(d)
    out.diagnosisRows += bundle.diagnoses.length
    for (const l of bundle.procedures) out.lines += lineText(l)
    out.lineRows += bundle.procedures.length
  }
  for (const r of ds.pharmacyOfPatient(patient)) {
    out.fills += fillText(r)
    out.fillRows++
  }
  return out
}

/** A facility's price list as COPY text (nothing for a facility that publishes none). */
export function facilityPricesText(ds: SyntheticDataset, facility: FacilityRow): { text: string; rows: number } {
  if (!publishesPrices(facility.facility_type)) return { text: '', rows: 0 }
  let text = ''
  let rows = 0
  for (const r of ds.facilityPrices(facility)) {
    text += copyTextRow(priceValues(r))
    rows++
  }
  return { text, rows }
}
