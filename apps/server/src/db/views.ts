import type { Row } from './kysely.js'

/**
 * The relations that migrations create in SQL and Prisma does not manage: views, materialised views, and the three
 * aggregate tables filled in turns from a view (docs/decisions/0079). Their rows are declared by the `view` blocks of
 * prisma/schema.prisma, so `Row<'mv_provider_panel'>` types them as `Row<'providers'>` types a table; prisma-kysely
 * generates both (db/kysely.ts).
 */
export type ViewName =
  | 'mv_facility_antivenom_purchases'
  | 'mv_facility_snakebite'
  | 'mv_patient_diagnoses'
  | 'mv_patient_diagnoses_source'
  | 'mv_prescriber_summaries'
  | 'mv_price_code_points'
  | 'mv_provider_code_volume'
  | 'mv_provider_code_volume_source'
  | 'mv_provider_panel'
  | 'mv_provider_points'
  | 'mv_provider_prices'
  | 'mv_provider_prices_source'
  | 'mv_region_neighbours'
  | 'mv_search_words'
  | 'provider_network_participation'

/**
 * The JS value node-postgres gives a column, by pg-types' default parsers (the server sets none): int8 and numeric
 * are strings, dates and timestamps Dates; an array of numeric, though, is numbers.
 */
export type ValueKind = 'number' | 'string' | 'boolean' | 'date' | 'number[]' | 'string[]' | 'boolean[]' | 'date[]'

type KindOf<T> = [T] extends [Date]
  ? 'date'
  : [T] extends [boolean]
    ? 'boolean'
    : [T] extends [number]
      ? 'number'
      : [T] extends [string]
        ? 'string'
        : [T] extends [readonly number[]]
          ? 'number[]'
          : [T] extends [readonly string[]]
            ? 'string[]'
            : [T] extends [readonly boolean[]]
              ? 'boolean[]'
              : [T] extends [readonly Date[]]
                ? 'date[]'
                : never

/** A column's kind as the generated row type has it, `| null` when the type admits NULL. */
type ColumnKind<T> = null extends T ? `${KindOf<NonNullable<T>>} | null` : KindOf<T>

/** Every column of a view's generated row type, with its kind. */
export type ViewColumns<V extends ViewName> = { readonly [C in keyof Row<V>]-?: ColumnKind<Row<V>[C]> }

/** The aggregate tables filled in turns (decision 0079) have the columns of the view they are filled from. */
const PATIENT_DIAGNOSES = {
  patient_id: 'string',
  icd10_code: 'string',
  gender: 'string',
  age: 'number',
  payer_type: 'string',
  state: 'string',
  county_fips: 'string | null',
  zip_code: 'string',
  claim_count: 'number',
  first_service_date: 'date',
  last_service_date: 'date',
} as const

const PROVIDER_CODE_VOLUME = { npi: 'string', code_kind: 'string', code: 'string', claim_count: 'number', patient_count: 'number' } as const

const PROVIDER_PRICES = {
  npi: 'string',
  procedure_code: 'string',
  line_count: 'number',
  avg_list_amount: 'string | null',
  avg_negotiated_amount: 'string | null',
  avg_insurer_amount: 'string | null',
  avg_patient_amount: 'string | null',
  all_line_count: 'number',
  sum_negotiated: 'string',
  carriers: 'string[]',
  carrier_sum_negotiated: 'number[]',
  carrier_line_count: 'number[]',
} as const

/**
 * The columns of each view in the order the migrations give them, with the kind of value read. The compiler holds this
 * list to the generated row types (every column, no other, the same kind and nullability); views.int.test.ts holds it
 * to the migrated database (names, order and the kind of the PostgreSQL type; no row of the test dataset NULL where
 * the type says it cannot be). A view changed in a migration is changed in prisma/schema.prisma and here.
 */
export const VIEW_COLUMNS = {
  mv_facility_antivenom_purchases: { facility_id: 'number', year: 'number', product: 'string', units: 'number', amount: 'string' },
  mv_facility_snakebite: {
    facility_id: 'number',
    year: 'number',
    cases: 'number',
    treated_cases: 'number',
    crofab_cases: 'number',
    anavip_cases: 'number',
    crofab_units_used: 'number',
    anavip_units_used: 'number',
  },
  mv_patient_diagnoses: PATIENT_DIAGNOSES,
  mv_patient_diagnoses_source: PATIENT_DIAGNOSES,
  mv_prescriber_summaries: {
    npi: 'string',
    drug_name: 'string',
    ndc: 'string',
    patients_5yr: 'number',
    units_5yr: 'string',
    claims_5yr: 'number',
    first_fill_date: 'date',
    last_fill_date: 'date',
  },
  mv_price_code_points: { procedure_code: 'string', latitude: 'number', longitude: 'number', facility_id: 'number' },
  mv_provider_code_volume: PROVIDER_CODE_VOLUME,
  mv_provider_code_volume_source: PROVIDER_CODE_VOLUME,
  mv_provider_panel: { npi: 'string', last_year_patient_count: 'number', last_month_new_patient_count: 'number', patient_count: 'number' },
  mv_provider_points: { primary_taxonomy_code: 'string', latitude: 'number', longitude: 'number', npi: 'string' },
  mv_provider_prices: PROVIDER_PRICES,
  mv_provider_prices_source: PROVIDER_PRICES,
  mv_region_neighbours: { kind: 'string', region_id: 'string', neighbour_id: 'string' },
  mv_search_words: { domain: 'string', word: 'string', documents: 'number' },
  provider_network_participation: {
    npi: 'string',
    insurer_name: 'string',
    plan_type: 'string | null',
    in_network: 'boolean | null',
    last_verified_at: 'date',
  },
} as const satisfies { readonly [V in ViewName]: ViewColumns<V> }
