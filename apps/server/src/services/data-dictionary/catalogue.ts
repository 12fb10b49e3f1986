import type { DataDictionaryRow } from '@citrus/contracts'

export interface CatalogueTab {
  key: string
  label: string
  /** the table, view or materialised view that holds the data (its row count is shown) */
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
 * The data dictionary page's tab sets, describing only relations the database holds (spec 4 §4;
 * prisma/schema.prisma "data platform"; data-dictionary.int.test.ts checks every table and column).
 * HCP PRESCRIBER DATA is a materialised view and INSURANCE VARIABLES DATA a view over the providers'
 * network map. Spec 1 §2's second tab set (clinical EHR data: encounters, orders, results, problems,
 * medications) is not listed: the platform holds no EHR tables yet.
 */
export const DATA_DICTIONARY: CatalogueSet[] = [
  {
    key: 'claims',
    title: 'Claims and provider data',
    tabs: [
      {
        key: 'medx_claims',
        label: 'MEDX CLAIMS',
        table: 'claims',
        rows: [
          row('id', 'bigint', 'Identifier of the claim (negative for emergency snakebite claims)', '412003'),
          row('patient_id', 'bigint', 'De-identified patient (patients.id), stable across claims', '412'),
          row('service_date', 'date', 'Date the service was rendered', '2025-03-14'),
          row('rendering_npi', 'char(10)', 'NPI of the rendering provider (providers.npi)', '1316938275'),
          row('facility_id', 'integer', 'Facility where the service took place (facilities.id), if any', '1204'),
          row('facility_npi', 'char(10)', 'NPI of that facility', '2659372413'),
          row('payer_type', 'text', 'commercial, medicare, medicaid or other', 'medicare'),
          row('insurer_name', 'text', 'Insurer that adjudicated the claim', 'Aetna'),
          row('place_of_service', 'text', 'office, outpatient, inpatient or emergency', 'office'),
          row('list_amount', 'numeric(12,2)', 'Billed (list) amount in US dollars: the sum of the claim lines', '245.00'),
          row('negotiated_amount', 'numeric(12,2)', 'Amount allowed under the payer contract, US dollars', '131.40'),
          row('insurer_amount', 'numeric(12,2)', 'Part of the allowed amount paid by the insurer', '105.12'),
          row('patient_amount', 'numeric(12,2)', 'Part of the allowed amount paid by the patient', '26.28'),
          row(
            'claim_diagnoses.icd10_code',
            'text',
            'Diagnosis codes (ICD-10-CM) of the claim, one row each, principal first (sequence 1)',
            'E11.9',
          ),
          row(
            'claim_procedures.procedure_code',
            'text',
            'CPT/HCPCS code of each claim line, with units and the four amounts per line',
            '99214',
          ),
          row(
            'patients.age, gender, zip_code, payer_type',
            'integer, char(1), char(5), text',
            'The patient the claim belongs to: age, F or M, ZIP of residence, payer type',
            '57, F, 98101, medicare',
          ),
        ],
      },
      {
        key: 'hcp_data',
        label: 'HCP DATA',
        table: 'providers',
        rows: [
          row('npi', 'char(10)', 'National Provider Identifier (10 digits, Luhn check digit)', '1316938275'),
          row('first_name', 'text', 'Given name of the clinician', 'Maria'),
          row('last_name', 'text', 'Family name of the clinician', 'Lopez'),
          row('full_name', 'text', 'Name as shown, with the credential', 'Maria L. Lopez, MD'),
          row('title', 'text', 'Credential: MD, DO, NP, PA-C, DPM, DDS, OD, PT, LPC, PhD, ...', 'MD'),
          row('provider_kind', 'text', 'Broad clinician type (physician, nurse_practitioner, counselor, ...)', 'physician'),
          row('primary_taxonomy_code', 'char(10)', 'NUCC taxonomy code of the primary specialty', '207RE0101X'),
          row('cms_specialization', 'text', 'Name of the primary specialty', 'Endocrinology, Diabetes & Metabolism Physician'),
          row('gender', 'char(1)', 'Gender of the clinician: F or M', 'F'),
          row('age', 'integer', 'Age of the clinician in years', '46'),
          row('years_in_practice', 'integer', 'Years since the end of training', '14'),
          row('medical_school', 'text', 'School of the primary degree'),
          row('phone_number', 'text', 'Practice phone number (10 digits)', '2065550143'),
          row('address, city, state, zip_code', 'text, text, char(2), char(5)', 'Practice address', '325 9th Ave, Seattle, WA, 98104'),
          row(
            'latitude, longitude, geog',
            'double precision, geography',
            'Practice location (WGS 84); geog is derived and indexed for radius searches',
            '47.6040, -122.3238',
          ),
          row('facility_id', 'integer', 'Affiliated facility (facilities.id)', '1204'),
          row('accepting_new_patients', 'boolean', 'Whether the clinician takes new patients', 'true'),
          row('aggregated_insurance_networks_v1', 'jsonb', 'Insurer name → in-network flag', '{"Aetna": true}'),
          row('last_verified_at', 'date', 'When the directory record was last verified', '2025-06-02'),
          row('confidence', 'numeric(3,2)', 'Confidence in the directory record, 0-1', '0.92'),
          row('source', 'text', 'synthetic (generated) or nppes (imported from the NPPES file)', 'synthetic'),
        ],
      },
      {
        key: 'hco_data',
        label: 'HCO DATA',
        table: 'facilities',
        rows: [
          row('npi', 'char(10)', 'NPI of the organization (none for hospitals imported from CMS)', '2659372413'),
          row('ccn', 'varchar(6)', 'CMS certification number of imported hospitals', '500064'),
          row('name', 'text', 'Name of the facility', 'Harborview Medical Center'),
          row('facility_type', 'text', 'hospital, critical_access, ambulatory_surgery, urgent_care, clinic or imaging', 'hospital'),
          row('hco_compile_level_1', 'text', 'Institution type shown in rankings', 'Hospital'),
          row('health_system_id', 'integer', 'Health system the facility belongs to, if any (health_systems.id)', '23'),
          row('phone_number', 'text', 'Main phone number (10 digits)', '2067443000'),
          row('address_line_1', 'text', 'Street address', '325 9th Ave'),
          row('city', 'text', 'City', 'Seattle'),
          row('state', 'char(2)', 'Two-letter state code', 'WA'),
          row('zip_code', 'char(5)', 'Five-digit ZIP code', '98104'),
          row('latitude', 'double precision', 'Latitude (WGS 84)', '47.6040'),
          row('longitude', 'double precision', 'Longitude (WGS 84)', '-122.3238'),
          row('bed_count', 'integer', 'Staffed beds (hospitals)', '413'),
          row('emergency_services', 'boolean', 'Whether the facility has an emergency department', 'true'),
        ],
      },
      {
        key: 'pharmx_claims',
        label: 'PHARMX CLAIMS',
        table: 'pharmacy_claims',
        rows: [
          row('id', 'bigint', 'Identifier of the pharmacy claim line', '118'),
          row('patient_id', 'bigint', 'De-identified patient (same as in MEDX CLAIMS)', '60118'),
          row('fill_date', 'date', 'Date the prescription was filled or the drug administered', '2025-03-15'),
          row('prescriber_npi', 'char(10)', 'NPI of the prescriber', '1316938275'),
          row('facility_npi', 'char(10)', 'NPI of the administering facility (empty for a retail or mail-order fill)', '2659372413'),
          row('ndc', 'varchar(13)', 'National Drug Code of the package, 5-4-2 with hyphens', '00006-0277-31'),
          row('drug_name', 'text', 'Brand and generic name of the drug', 'Januvia (sitagliptin)'),
          row('units', 'numeric(10,2)', 'Units (tablets, inhalers, pens, vials) dispensed or administered', '90'),
          row('days_supply', 'integer', 'Days the fill lasts (empty for a drug given in hospital, such as antivenom)', '90'),
          row('payer_type', 'text', 'commercial, medicare, medicaid or other', 'commercial'),
          row('negotiated_amount', 'numeric(12,2)', 'Allowed amount in US dollars', '18450.00'),
          row('patient_amount', 'numeric(12,2)', 'Part paid by the patient', '3690.00'),
        ],
      },
      {
        key: 'hcp_prescriber_data',
        label: 'HCP PRESCRIBER DATA',
        table: 'mv_prescriber_summaries',
        rows: [
          row('npi', 'char(10)', 'NPI of the prescriber', '1316938275'),
          row('drug_name', 'text', 'Drug prescribed', "Anavip (Crotalidae immune F(ab')2 (equine))"),
          row('ndc', 'varchar(13)', 'National Drug Code', '66621-0790-02'),
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
          row('npi', 'char(10)', 'NPI of the provider', '1316938275'),
          row('insurer_name', 'text', 'Name of the insurer', 'UnitedHealthcare'),
          row('plan_type', 'text', 'commercial, blues, medicare, medicaid or military', 'commercial'),
          row('in_network', 'boolean', 'Whether the provider is in network for the insurer', 'true'),
          row('last_verified_at', 'date', 'When the participation was last confirmed', '2025-05-20'),
        ],
      },
    ],
  },
  {
    key: 'prices',
    title: 'Price transparency data',
    tabs: [
      {
        key: 'facility_prices',
        label: 'FACILITY PRICES',
        table: 'facility_prices',
        rows: [
          row('facility_id', 'integer', 'Facility whose price list it is (facilities.id)', '1204'),
          row('procedure_code', 'text', 'CPT/HCPCS code of the item or service', '70551'),
          row('setting', 'text', 'inpatient, outpatient or both (CMS price file v3)', 'outpatient'),
          row('payer_name', 'text', "Payer of a negotiated rate; '' for the cash row", 'Aetna'),
          row('plan_name', 'text', "Plan of that payer; '' for the cash row", 'PPO'),
          row('gross_charge', 'numeric(14,2)', 'Chargemaster (list) price, US dollars', '2450.00'),
          row('discounted_cash', 'numeric(14,2)', 'Price for a patient paying cash', '1102.50'),
          row('negotiated_dollar', 'numeric(14,2)', 'Negotiated rate in dollars, when the contract states one', '812.40'),
          row('negotiated_percentage', 'numeric(9,3)', 'Negotiated rate as a percentage of the gross charge', '38.500'),
          row(
            'median_amount, p10_amount, p90_amount',
            'numeric(14,2)',
            'CMS v3 allowed-amount statistics (when the rate is not in dollars)',
            '790.00',
          ),
          row('methodology', 'text', 'case rate, fee schedule, percent of total billed charges, ...', 'fee schedule'),
          row('source', 'text', "'synthetic' or the imported file's origin", 'cms'),
        ],
      },
      {
        key: 'plan_cost_sharing',
        label: 'PLAN COST SHARING',
        table: 'plan_cost_sharing',
        rows: [
          row('payer_name', 'text', "Payer the row applies to; '' = any (docs/decisions/0028, 0048)", 'Aetna'),
          row('payer_kind', 'text', "commercial, blues, medicare, medicaid or military; '' = any", 'commercial'),
          row('plan_name', 'text', "Plan name of a price list row; '' = any", 'HMO'),
          row('plan_design', 'text', 'One of several plan designs under the same match', 'PPO, $1,000 deductible, 20% coinsurance'),
          row('deductible', 'numeric(10,2)', 'Yearly deductible the member pays in full first', '1000.00'),
          row('copay', 'numeric(10,2)', 'Fixed amount the member pays per procedure', '50.00'),
          row('coinsurance', 'numeric(5,4)', 'Share of the rest the member pays (0..1)', '0.2000'),
          row('weight', 'numeric(8,4)', 'Enrollment share of the design within its match', '0.2000'),
          row('source', 'text', "'default' (migration), 'synthetic' (seed) or an operator's label", 'synthetic'),
        ],
      },
    ],
  },
]
