import type { DataDictionaryRow } from '@citrus/contracts'

export interface CatalogueTab {
  key: string
  label: string
  /** the table that holds (or will hold) the data; row counts are read from it when it exists */
  table: string
  rows: DataDictionaryRow[]
}

export interface CatalogueSet {
  key: string
  title: string
  tabs: CatalogueTab[]
}

const row = (column: string, type: string, description: string, example?: string): DataDictionaryRow =>
  example === undefined ? { column, type, description } : { column, type, description, example }

/**
 * The two tab sets of the data dictionary page (spec 1 §2). Table names are the ones the data
 * platform (spec 4 §4) creates; until a table exists its row count is null.
 */
export const DATA_DICTIONARY: CatalogueSet[] = [
  {
    key: 'claims',
    title: 'Claims and provider data',
    tabs: [
      {
        key: 'medx_claims',
        label: 'MEDX CLAIMS',
        table: 'medical_claims',
        rows: [
          row('claim_id', 'text', 'Identifier of the claim line', 'MX000012345-1'),
          row('patient_id', 'text', 'De-identified patient identifier, stable across claims', 'P00098231'),
          row('patient_age', 'integer', 'Age of the patient at the service date, in years', '57'),
          row('patient_gender', 'text', 'Gender of the patient: F, M or U', 'F'),
          row('patient_zip_code', 'text', 'Five-digit ZIP code of the patient residence', '98101'),
          row('payer_type', 'text', 'Commercial, Medicare, Medicaid or Other', 'Medicare'),
          row('service_date', 'date', 'Date the service was rendered', '2025-03-14'),
          row('rendering_npi', 'text', 'NPI of the rendering provider', '1316938275'),
          row('facility_npi', 'text', 'NPI of the facility where the service took place', '1659372413'),
          row('icd10_cm_codes', 'text[]', 'Diagnosis codes (ICD-10-CM) on the claim, principal first', 'E11.9, I10'),
          row('procedure_codes', 'text[]', 'CPT/HCPCS procedure codes on the claim line', '99214'),
          row('list_amount', 'numeric', 'Billed (list) amount in US dollars', '245.00'),
          row('negotiated_amount', 'numeric', 'Amount allowed under the payer contract, US dollars', '131.40'),
          row('insurer_amount', 'numeric', 'Part of the allowed amount paid by the insurer', '105.12'),
          row('patient_amount', 'numeric', 'Part of the allowed amount paid by the patient', '26.28'),
          row('insurer_name', 'text', 'Name of the insurer that adjudicated the claim', 'Aetna'),
        ],
      },
      {
        key: 'hcp_data',
        label: 'HCP DATA',
        table: 'providers',
        rows: [
          row('npi', 'text', 'National Provider Identifier (10 digits, Luhn check digit)', '1316938275'),
          row('first_name', 'text', 'Given name of the clinician', 'Maria'),
          row('last_name', 'text', 'Family name of the clinician', 'Lopez'),
          row('credential', 'text', 'MD, DO, NP, PA, DPM, DDS, OD, PT, counselor, psychologist or other', 'MD'),
          row('primary_taxonomy_code', 'text', 'NUCC taxonomy code of the primary specialty', '207RE0101X'),
          row('specialty', 'text', 'Plain-language name of the primary specialty', 'Endocrinology, Diabetes & Metabolism'),
          row('gender', 'text', 'Gender of the clinician: F, M or U', 'F'),
          row('age', 'integer', 'Age of the clinician in years', '46'),
          row('years_in_practice', 'integer', 'Years since the end of training', '14'),
          row('medical_school', 'text', 'School of the primary degree'),
          row('phone_number', 'text', 'Practice phone number, E.164', '+12065550143'),
          row('zip_code', 'text', 'Five-digit ZIP code of the practice address', '98104'),
          row('accepting_new_patients', 'boolean', 'Whether the clinician takes new patients', 'true'),
          row('last_verified_at', 'date', 'When the directory record was last verified', '2025-06-02'),
        ],
      },
      {
        key: 'hco_data',
        label: 'HCO DATA',
        table: 'facilities',
        rows: [
          row('npi', 'text', 'NPI of the organization', '1659372413'),
          row('name', 'text', 'Name of the facility', 'Harborview Medical Center'),
          row('facility_type', 'text', 'Hospital, outpatient center or clinic', 'Hospital'),
          row('health_system_id', 'text', 'Health system the facility belongs to, if any', 'HS00231'),
          row('phone_number', 'text', 'Main phone number, E.164', '+12067443000'),
          row('address_line_1', 'text', 'Street address', '325 9th Ave'),
          row('city', 'text', 'City', 'Seattle'),
          row('state', 'text', 'Two-letter state code', 'WA'),
          row('zip_code', 'text', 'Five-digit ZIP code', '98104'),
          row('latitude', 'double precision', 'Latitude (WGS 84)', '47.6040'),
          row('longitude', 'double precision', 'Longitude (WGS 84)', '-122.3238'),
        ],
      },
      {
        key: 'pharmx_claims',
        label: 'PHARMX CLAIMS',
        table: 'pharmacy_claims',
        rows: [
          row('claim_id', 'text', 'Identifier of the pharmacy claim line', 'RX000045678-1'),
          row('patient_id', 'text', 'De-identified patient identifier (same as in MEDX CLAIMS)', 'P00098231'),
          row('fill_date', 'date', 'Date the prescription was filled or the drug administered', '2025-03-15'),
          row('prescriber_npi', 'text', 'NPI of the prescriber', '1316938275'),
          row('facility_npi', 'text', 'NPI of the dispensing or administering facility', '1659372413'),
          row('ndc', 'text', 'National Drug Code (11 digits)', '50633011011'),
          row('drug_name', 'text', 'Brand or generic name of the drug', 'CroFab'),
          row('units', 'numeric', 'Units (vials, tablets) dispensed or administered', '6'),
          row('payer_type', 'text', 'Commercial, Medicare, Medicaid or Other', 'Commercial'),
          row('negotiated_amount', 'numeric', 'Allowed amount in US dollars', '18450.00'),
        ],
      },
      {
        key: 'hcp_prescriber_data',
        label: 'HCP PRESCRIBER DATA',
        table: 'prescriber_summaries',
        rows: [
          row('npi', 'text', 'NPI of the prescriber', '1316938275'),
          row('drug_name', 'text', 'Drug prescribed', 'Anavip'),
          row('patients_5yr', 'integer', 'Distinct patients who received the drug from this prescriber in five years', '12'),
          row('units_5yr', 'numeric', 'Units prescribed in five years', '84'),
          row('claims_5yr', 'integer', 'Pharmacy claim lines in five years', '15'),
          row('first_fill_date', 'date', 'Earliest fill in the window', '2021-05-02'),
          row('last_fill_date', 'date', 'Latest fill in the window', '2025-04-27'),
        ],
      },
      {
        key: 'insurance_variables_data',
        label: 'INSURANCE VARIABLES DATA',
        table: 'provider_network_participation',
        rows: [
          row('npi', 'text', 'NPI of the provider or facility', '1316938275'),
          row('insurer_name', 'text', 'Name of the insurer', 'UnitedHealthcare'),
          row('plan_type', 'text', 'Commercial, Medicare Advantage or Medicaid managed care', 'Commercial'),
          row('in_network', 'boolean', 'Whether the provider is in network for the insurer', 'true'),
          row('last_verified_at', 'date', 'When the participation was last confirmed', '2025-05-20'),
        ],
      },
    ],
  },
  {
    key: 'clinical',
    title: 'Clinical (EHR) data',
    tabs: [
      {
        key: 'encounter_header',
        label: 'ENCOUNTER HEADER',
        table: 'ehr_encounters',
        rows: [
          row('encounter_id', 'text', 'Identifier of the encounter', 'E0001928374'),
          row('patient_id', 'text', 'De-identified patient identifier', 'P00098231'),
          row('encounter_date', 'date', 'Date the encounter started', '2025-02-11'),
          row('encounter_type', 'text', 'Inpatient, outpatient, emergency or telehealth', 'Outpatient'),
          row('provider_npi', 'text', 'NPI of the attending clinician', '1316938275'),
          row('facility_npi', 'text', 'NPI of the facility', '1659372413'),
          row('discharge_date', 'date', 'Date the encounter ended (inpatient stays)'),
        ],
      },
      {
        key: 'order',
        label: 'ORDER',
        table: 'ehr_orders',
        rows: [
          row('order_id', 'text', 'Identifier of the order', 'O0003344'),
          row('encounter_id', 'text', 'Encounter the order belongs to', 'E0001928374'),
          row('order_date', 'date', 'Date the order was placed', '2025-02-11'),
          row('order_code', 'text', 'CPT/HCPCS or LOINC code of what was ordered', '83036'),
          row('order_description', 'text', 'Plain-language description of the order', 'Hemoglobin A1c test'),
          row('ordering_npi', 'text', 'NPI of the ordering clinician', '1316938275'),
        ],
      },
      {
        key: 'result',
        label: 'RESULT',
        table: 'ehr_results',
        rows: [
          row('result_id', 'text', 'Identifier of the result', 'R0009911'),
          row('order_id', 'text', 'Order the result answers', 'O0003344'),
          row('loinc_code', 'text', 'LOINC code of the observation', '4548-4'),
          row('value', 'text', 'Observed value', '7.2'),
          row('unit', 'text', 'Unit of the value', '%'),
          row('reference_range', 'text', 'Normal range for the observation', '4.0-5.6'),
          row('result_date', 'date', 'Date the result was reported', '2025-02-12'),
        ],
      },
      {
        key: 'problem',
        label: 'PROBLEM',
        table: 'ehr_problems',
        rows: [
          row('problem_id', 'text', 'Identifier of the problem list entry', 'PR000123'),
          row('patient_id', 'text', 'De-identified patient identifier', 'P00098231'),
          row('icd10_cm_code', 'text', 'ICD-10-CM code of the problem', 'E11.9'),
          row('description', 'text', 'Plain-language description', 'Type 2 diabetes mellitus without complications'),
          row('onset_date', 'date', 'When the problem was first recorded', '2019-08-30'),
          row('status', 'text', 'Active, resolved or inactive', 'Active'),
        ],
      },
      {
        key: 'medication_data',
        label: 'MEDICATION DATA',
        table: 'ehr_medications',
        rows: [
          row('medication_id', 'text', 'Identifier of the medication entry', 'M000771'),
          row('patient_id', 'text', 'De-identified patient identifier', 'P00098231'),
          row('ndc', 'text', 'National Drug Code', '00002143380'),
          row('drug_name', 'text', 'Name of the drug', 'Trulicity'),
          row('dose', 'text', 'Dose and unit', '1.5 mg'),
          row('route', 'text', 'Route of administration', 'Subcutaneous'),
          row('start_date', 'date', 'Start of the medication', '2024-01-09'),
          row('end_date', 'date', 'End of the medication, if stopped'),
        ],
      },
    ],
  },
]
