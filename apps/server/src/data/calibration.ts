import {
  ANTIVENOM_PRODUCTS,
  CODE_AGE_LIMITS,
  CONDITION_DRUGS,
  CORAL_SNAKE_STATES,
  COUNTY_POPULATION,
  GENERIC_DISPENSING_SHARE,
  MAINTENANCE_DRUGS,
  MEDICARE_FEE,
  PHYSICIANS_PER_100K,
  PROVIDER_MIX_FULL,
  REGIONAL_NAME_WORDS,
  SCALES,
  SNAKEBITES_PER_YEAR,
  STATES,
  stateAreaCodes,
  type Scale,
} from '@citrus/data-kit'
import type pg from 'pg'
import { latestSeed } from './loads.js'

/**
 * The calibration report (issue 10): every target of seed/CALIBRATION.md, with its published source, measured
 * by SQL on the loaded rows. Shares pass within ±10 % of the target, rates and amounts within ±20 %; rules
 * (integrity checks and bounds) pass when the measured value meets the bound exactly. A figure whose sample is
 * too small at the loaded scale to be judged (relative standard error above a third of the tolerance) is
 * reported but not judged.
 */
export type TargetKind = 'share' | 'rate' | 'rule'

export interface CalibrationTarget {
  key: string
  area: string
  label: string
  kind: TargetKind
  target: number
  /** rules: the measured value must be at most (max), at least (min) or equal to (eq) the target */
  bound?: 'max' | 'min' | 'eq'
  unit: '%' | 'per 100' | 'per 100,000' | '$' | '×' | 'rows'
  source: string
  /** One row: value, and n = the sample behind it (denominator of a share, events of a rate). */
  sql: string
}

export interface CalibrationResult {
  key: string
  area: string
  label: string
  kind: TargetKind
  unit: CalibrationTarget['unit']
  source: string
  target: number
  measured: number | null
  /** (measured - target) / target for shares and rates; measured - target for rules */
  deviation: number | null
  tolerance: string
  sample: number
  status: 'pass' | 'fail' | 'small sample'
}

export const SHARE_TOLERANCE = 0.1
export const RATE_TOLERANCE = 0.2

const sqlList = (values: Iterable<string>) => [...values].map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')
/** The sampled population: every patient (a snakebite happens to one of them, not to an extra patient). */
const POP = `(SELECT * FROM patients)`
/**
 * Claims of the population's routine care: snakebite claims (negative ids) are left out, since the snakebite cases
 * are sampled at the national case count × snakebite_fraction for Nova, far above what a sample of this size would
 * hold, and would inflate emergency and cost figures.
 */
const CLAIMS = `(SELECT * FROM claims WHERE id > 0)`
const share = (numerator: string, from: string) => `SELECT (count(*) FILTER (WHERE ${numerator}))::float8 / NULLIF(count(*), 0) AS value, count(*)::float8 AS n FROM ${from}`

const TOP10_COUNTY_SHARE = (() => {
  const pops = Object.values(COUNTY_POPULATION).sort((a, b) => b - a)
  return pops.slice(0, 10).reduce((a, b) => a + b, 0) / pops.reduce((a, b) => a + b, 0)
})()
const POP_BY_STATE = new Map(STATES.map((s) => [s.abbr, s.population_2023 ?? 0]))
const FULL_PROVIDERS = Object.values(PROVIDER_MIX_FULL).reduce((a, b) => a + b, 0)
const GENERIC_CONDITIONS = ['type2_diabetes', 'hypertension', 'depression']
const GENERIC_ELIGIBLE_NDCS = new Set(
  GENERIC_CONDITIONS.flatMap((c) => (CONDITION_DRUGS[c]?.drugs ?? []).map(([k]) => MAINTENANCE_DRUGS.find((d) => d.key === k)?.ndc ?? '')),
)
const GENERIC_NDCS = new Set(MAINTENANCE_DRUGS.filter((d) => d.generic).map((d) => d.ndc))
const MAINTENANCE_NDCS = new Set(MAINTENANCE_DRUGS.map((d) => d.ndc))
/** Brands with a generic equivalent, and those generics: the fills a pharmacy may substitute. */
const MULTI_SOURCE_NDCS = new Set(
  MAINTENANCE_DRUGS.filter((d) => d.generics?.length).flatMap((d) => [d.ndc, ...MAINTENANCE_DRUGS.filter((g) => d.generics!.includes(g.key)).map((g) => g.ndc)]),
)
const ANTIVENOM_NDCS = new Set(ANTIVENOM_PRODUCTS.flatMap((p) => p.ndcs))
/** (state, area code) pairs in use: the area codes hospitals of each state answer on (CMS Hospital General Information). */
const STATE_AREA_CODES = (() => {
  const byFips = stateAreaCodes()
  return STATES.flatMap((s) => [...(byFips.get(s.fips) ?? [])].map((code) => `('${s.abbr}', '${code}')`)).join(', ')
})()
const STATE_DIVISIONS = STATES.filter((s) => s.division).map((s) => `('${s.abbr}', '${s.division!.replace(/'/g, "''")}')`).join(', ')
const REGIONAL_WORDS = Object.entries(REGIONAL_NAME_WORDS)
  .flatMap(([word, states]) => states.map((st) => `('${word.replace(/'/g, "''")}', '${st}')`))
  .join(', ')
const PREVENTIVE_VISIT_CODES = Object.keys(CODE_AGE_LIMITS).filter((c) => /^(993|G043)/.test(c))
const HOSPITAL_ONLY_CODES = ['99221', '99222', '99223', '99231', '99232', '99233', '27447', '27130', '59400', '59510']

/** The targets for one loaded scale (provider densities and snakebite totals scale with it). */
export function calibrationTargets(scale: Scale): CalibrationTarget[] {
  const years = scale.claim_years
  const providerScale = FULL_PROVIDERS / scale.providers
  const physiciansPer100k = (state: string) =>
    `SELECT count(*)::float8 * ${providerScale} / ${POP_BY_STATE.get(state) ?? 1} * 100000 AS value, count(*)::float8 AS n FROM providers WHERE source = 'synthetic' AND provider_kind = 'physician' AND state = '${state}'`
  const ageRules = Object.entries(CODE_AGE_LIMITS)
    .map(([code, [lo, hi]]) => `(cp.procedure_code = '${code}' AND (EXTRACT(YEAR FROM c.service_date)::int - p.birth_year) NOT BETWEEN ${lo} AND ${hi})`)
    .join(' OR ')
  const drugMinAge = MAINTENANCE_DRUGS.map((d) => `(r.ndc = '${d.ndc}' AND (EXTRACT(YEAR FROM r.fill_date)::int - p.birth_year) < ${d.min_age})`).join(' OR ')
  const emShare = (code: string) => share(`procedure_code = '${code}'`, `(SELECT procedure_code FROM claim_procedures WHERE claim_id > 0 AND procedure_code IN ('99211','99212','99213','99214','99215')) x`)
  const insurerShare = (where: string, payer: string, extra = '') =>
    share(where, `${POP} p WHERE payer_type = '${payer}' ${extra}`)
  return [
    // ---------- geography ----------
    {
      key: 'geo.top10_counties',
      area: 'geography',
      label: 'Patients living in the 10 most populous counties',
      kind: 'share',
      target: TOP10_COUNTY_SHARE,
      unit: '%',
      source: 'Census Bureau, county population estimates Vintage 2023 (co-est2023-alldata)',
      sql: `WITH c AS (SELECT fips FROM counties WHERE population IS NOT NULL ORDER BY population DESC LIMIT 10) ${share('county_fips IN (SELECT fips FROM c)', `${POP} p`)}`,
    },
    {
      key: 'geo.county_population_loaded',
      area: 'geography',
      label: 'Counties with a population figure in the loaded data',
      kind: 'rule',
      bound: 'eq',
      target: 1,
      unit: '%',
      source: 'Census Bureau, Vintage 2023',
      sql: share('population IS NOT NULL', `counties WHERE state_fips IN (${sqlList(STATES.filter((s) => s.population_2023).map((s) => s.fips))})`),
    },
    {
      key: 'geo.physicians_ma',
      area: 'geography',
      label: 'Physicians per 100,000 residents, Massachusetts',
      kind: 'rate',
      target: PHYSICIANS_PER_100K.MA ?? 450,
      unit: 'per 100,000',
      source: 'AAMC State Physician Workforce Data Book 2023',
      sql: physiciansPer100k('MA'),
    },
    {
      key: 'geo.physicians_ms',
      area: 'geography',
      label: 'Physicians per 100,000 residents, Mississippi',
      kind: 'rate',
      target: PHYSICIANS_PER_100K.MS ?? 200,
      unit: 'per 100,000',
      source: 'AAMC State Physician Workforce Data Book 2023',
      sql: physiciansPer100k('MS'),
    },
    {
      key: 'geo.points_outside_county',
      area: 'geography',
      label: 'Facilities and clinicians whose coordinates lie outside their county polygon',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (counties.geom, Census cartographic boundaries)',
      sql: `SELECT count(*)::float8 AS value, (SELECT count(*) FROM facilities) + (SELECT count(*) FROM providers)::float8 AS n FROM (
              SELECT latitude, longitude, county_fips FROM facilities WHERE source = 'synthetic'
              UNION ALL SELECT latitude, longitude, county_fips FROM providers WHERE source = 'synthetic') x
            JOIN counties c ON c.fips = x.county_fips
            WHERE NOT ST_Covers(c.geom, ST_SetSRID(ST_MakePoint(x.longitude, x.latitude), 4326))`,
    },
    {
      key: 'geo.facilities_outside_state',
      area: 'geography',
      label: 'Facilities whose coordinates lie outside their state polygon',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (states.geom)',
      sql: `SELECT count(*)::float8 AS value, (SELECT count(*) FROM facilities)::float8 AS n FROM facilities f JOIN states s ON s.abbr = f.state
            WHERE f.source = 'synthetic' AND NOT ST_Covers(s.geom, ST_SetSRID(ST_MakePoint(f.longitude, f.latitude), 4326))`,
    },
    {
      key: 'geo.phone_area_code',
      area: 'geography',
      label: 'Phone numbers of facilities, clinicians and systems with an area code not used in their state',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'NANP area codes by place, as CMS Hospital General Information lists them (e.g. 212 in Manhattan, not 305)',
      sql: `WITH codes(state, code) AS (VALUES ${STATE_AREA_CODES}),
                 phones AS (SELECT state, phone_number FROM facilities WHERE source = 'synthetic'
                            UNION ALL SELECT state, phone_number FROM providers WHERE source = 'synthetic'
                            UNION ALL SELECT state, phone_number FROM health_systems)
            SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM codes c WHERE c.state = p.state AND c.code = left(p.phone_number, 3)))::float8 AS value, count(*)::float8 AS n
            FROM phones p WHERE p.phone_number IS NOT NULL`,
    },
    {
      key: 'geo.address_two_zips',
      area: 'geography',
      label: 'Street addresses of a city listed under more than one ZIP code',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (USPS: one delivery address, one ZIP code)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM (
              SELECT address, city, state FROM (SELECT address_line_1 AS address, city, state, zip_code FROM facilities WHERE source = 'synthetic'
                                                UNION ALL SELECT address, city, state, zip_code FROM providers WHERE source = 'synthetic') a
              GROUP BY 1, 2, 3 HAVING count(DISTINCT zip_code) > 1) x`,
    },
    {
      key: 'systems.home_division',
      area: 'geography',
      label: 'System hospitals in the Census division of their system’s home state (at least 90 %)',
      kind: 'rule',
      bound: 'min',
      target: 0.9,
      unit: '%',
      source: 'AHRQ Compendium of US Health Systems: most systems own hospitals in one state or its neighbours',
      sql: `WITH d(state, division) AS (VALUES ${STATE_DIVISIONS})
            ${share('hd.division = fd.division', `facilities f JOIN health_systems h ON h.id = f.health_system_id JOIN d fd ON fd.state = f.state JOIN d hd ON hd.state = h.state WHERE f.facility_type IN ('hospital', 'critical_access')`)}`,
    },
    {
      key: 'systems.regional_name',
      area: 'geography',
      label: 'Systems named after a region (Gulf Coast, Red Rock, ...) with most hospitals outside it',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (a name’s region is where the system is)',
      sql: `WITH r(word, state) AS (VALUES ${REGIONAL_WORDS}),
                 x AS (SELECT h.id, r.word, avg((EXISTS (SELECT 1 FROM r r2 WHERE r2.word = r.word AND r2.state = f.state))::int) AS inside
                       FROM health_systems h JOIN (SELECT DISTINCT word FROM r) r ON h.name LIKE '%' || r.word || '%'
                       JOIN facilities f ON f.health_system_id = h.id GROUP BY 1, 2)
            SELECT count(*) FILTER (WHERE inside < 0.5)::float8 AS value, count(*)::float8 AS n FROM x`,
    },
    // ---------- population ----------
    { key: 'pop.children', area: 'population', label: 'People aged 0-17', kind: 'share', target: 0.217, unit: '%', source: 'Census Bureau, national estimates by age, Vintage 2023', sql: share('age < 18', `${POP} p`) },
    { key: 'pop.seniors', area: 'population', label: 'People aged 65 and over', kind: 'share', target: 0.177, unit: '%', source: 'Census Bureau, Vintage 2023', sql: share('age >= 65', `${POP} p`) },
    { key: 'pop.oldest', area: 'population', label: 'People aged 85 and over', kind: 'share', target: 0.02, unit: '%', source: 'Census Bureau, Vintage 2023', sql: share('age >= 85', `${POP} p`) },
    { key: 'pop.female_85', area: 'population', label: 'Women among people aged 85 and over', kind: 'share', target: 0.62, unit: '%', source: 'Census Bureau, Vintage 2023 (age and sex)', sql: share(`gender = 'F'`, `${POP} p WHERE age >= 85`) },
    { key: 'pop.female', area: 'population', label: 'Women among all people', kind: 'share', target: 0.505, unit: '%', source: 'Census Bureau, Vintage 2023', sql: share(`gender = 'F'`, `${POP} p`) },
    // ---------- conditions (diagnosed: at least one claim with the condition's code) ----------
    ...(
      [
        ['diabetes', 'Adults with diagnosed type 2 diabetes', 'E11%', 0.11, 'CDC National Diabetes Statistics Report 2023 (11.3 % of adults diagnosed)'],
        ['hypertension', 'Adults with diagnosed hypertension', 'I1%', 0.32, 'CDC BRFSS 2021 (32 % of adults ever told; 47 % total by NHANES)'],
        ['osteoarthritis', 'Adults with diagnosed osteoarthritis', 'M1%', 0.1, 'CDC arthritis surveillance (rounded)'],
        ['asthma', 'Adults with asthma', 'J45%', 0.08, 'CDC NHIS 2021 current asthma (8 %)'],
        ['copd', 'Adults with diagnosed COPD', 'J44%', 0.06, 'CDC BRFSS (about 6 %)'],
        ['depression', 'Adults with diagnosed depression', 'F3%', 0.084, 'NIMH / NSDUH 2021 (8.3 %)'],
        ['heart_failure', 'Adults with heart failure', 'I50%', 0.025, 'AHA Heart Disease and Stroke Statistics 2023 (about 2.4 %)'],
      ] as const
    ).map(
      ([key, label, like, target, source]): CalibrationTarget => ({
        key: `conditions.${key}`,
        area: 'conditions',
        label,
        kind: 'share',
        target,
        unit: '%',
        source,
        sql: share(`EXISTS (SELECT 1 FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id AND d.patient_id = c.patient_id WHERE c.patient_id = p.id AND d.icd10_code LIKE '${like}')`, `${POP} p WHERE age >= 18`),
      }),
    ),
    {
      key: 'conditions.ckd_seniors',
      area: 'conditions',
      label: 'People aged 65+ with coded chronic kidney disease',
      kind: 'share',
      target: 0.14,
      unit: '%',
      source: 'USRDS Annual Data Report 2023 (CKD in about 14 % of Medicare beneficiaries 66+; most CKD is undiagnosed, CDC)',
      sql: share(`EXISTS (SELECT 1 FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id AND d.patient_id = c.patient_id WHERE c.patient_id = p.id AND d.icd10_code LIKE 'N18%')`, `${POP} p WHERE age >= 65`),
    },
    {
      key: 'conditions.ckd_diabetes_ratio',
      area: 'conditions',
      label: 'Coded CKD among diabetics ÷ among non-diabetics, aged 45-64 (at least 2)',
      kind: 'rule',
      bound: 'min',
      target: 2,
      unit: '×',
      source: 'CDC: about 1 in 3 adults with diabetes has CKD, against about 1 in 7 overall',
      sql: `WITH x AS (SELECT EXISTS (SELECT 1 FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id AND d.patient_id = c.patient_id WHERE c.patient_id = p.id AND d.icd10_code LIKE 'E11%') AS dm,
                          EXISTS (SELECT 1 FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id AND d.patient_id = c.patient_id WHERE c.patient_id = p.id AND d.icd10_code LIKE 'N18%') AS ckd
                   FROM ${POP} p WHERE age BETWEEN 45 AND 64)
            SELECT (avg(ckd::int) FILTER (WHERE dm)) / NULLIF(avg(ckd::int) FILTER (WHERE NOT dm), 0) AS value, count(*) FILTER (WHERE dm AND ckd)::float8 AS n FROM x`,
    },
    {
      key: 'conditions.ckd_one_stage',
      area: 'conditions',
      label: 'Patients coded with more than one CKD stage',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (one stage per patient)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM (SELECT c.patient_id FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id AND d.patient_id = c.patient_id WHERE d.icd10_code LIKE 'N18%' GROUP BY c.patient_id HAVING count(DISTINCT d.icd10_code) > 1) x`,
    },
    {
      key: 'conditions.infants',
      area: 'conditions',
      label: 'Claims coding depression or obesity in children under 2',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (age rules)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id AND d.patient_id = c.patient_id JOIN patients p ON p.id = c.patient_id
            WHERE (EXTRACT(YEAR FROM c.service_date)::int - p.birth_year) < 2 AND (d.icd10_code LIKE 'F3%' OR d.icd10_code LIKE 'E66%')`,
    },
    // ---------- visit coding ----------
    { key: 'coding.99213', area: 'coding', label: 'Established office visits coded 99213', kind: 'share', target: 0.43, unit: '%', source: 'CMS Medicare Part B national summary 2023 (office E/M 99211-99215)', sql: emShare('99213') },
    { key: 'coding.99214', area: 'coding', label: 'Established office visits coded 99214', kind: 'share', target: 0.48, unit: '%', source: 'CMS Medicare Part B national summary 2023', sql: emShare('99214') },
    {
      key: 'coding.new_patient',
      area: 'coding',
      label: 'Office E/M visits billed as new-patient visits (99202-99205)',
      kind: 'share',
      target: 0.11,
      unit: '%',
      source: 'CMS Medicare Part B national summary 2023 (99202-99205 ≈ 11 % of office E/M services)',
      sql: share(`procedure_code BETWEEN '99202' AND '99205'`, `claim_procedures WHERE claim_id > 0 AND procedure_code BETWEEN '99202' AND '99215' AND procedure_code <> '99210'`),
    },
    {
      key: 'coding.age_codes',
      area: 'coding',
      label: 'Age-specific codes billed outside their age range (e.g. 99396 outside 40-64)',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (CPT preventive-visit age ranges; Medicare wellness 65+)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM claim_procedures cp JOIN claims c ON c.id = cp.claim_id AND c.patient_id = cp.patient_id JOIN patients p ON p.id = c.patient_id WHERE ${ageRules}`,
    },
    {
      key: 'coding.before_birth',
      area: 'coding',
      label: 'Claims and fills dated before the patient was born',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity',
      sql: `SELECT ((SELECT count(*) FROM claims c JOIN patients p ON p.id = c.patient_id WHERE EXTRACT(YEAR FROM c.service_date)::int < p.birth_year)
                 + (SELECT count(*) FROM pharmacy_claims r JOIN patients p ON p.id = r.patient_id WHERE EXTRACT(YEAR FROM r.fill_date)::int < p.birth_year))::float8 AS value, 1::float8 AS n`,
    },
    {
      key: 'coding.intake_once',
      area: 'coding',
      label: 'Psychiatric intakes (90791) repeated by the same clinician for the same patient',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (an intake evaluation opens an episode)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM (SELECT c.patient_id, c.rendering_npi FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id AND cp.patient_id = c.patient_id WHERE cp.procedure_code = '90791' GROUP BY 1, 2 HAVING count(*) > 1) x`,
    },
    {
      key: 'coding.hospital_codes_in_office',
      area: 'coding',
      label: 'Admissions, hospital visits, joint replacements or deliveries billed in an office',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (place of service)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM claim_procedures cp JOIN claims c ON c.id = cp.claim_id AND c.patient_id = cp.patient_id WHERE c.place_of_service = 'office' AND cp.procedure_code IN (${sqlList(HOSPITAL_ONLY_CODES)})`,
    },
    {
      key: 'coding.weekend_office',
      area: 'coding',
      label: 'Office visits on a Saturday or Sunday (at most 5 %)',
      kind: 'rule',
      bound: 'max',
      target: 0.05,
      unit: '%',
      source: 'NAMCS: office practices see few patients at weekends',
      sql: share(`EXTRACT(ISODOW FROM service_date) >= 6`, `${CLAIMS} c WHERE place_of_service = 'office'`),
    },
    // ---------- utilisation ----------
    {
      key: 'use.ed',
      area: 'utilisation',
      label: 'Emergency department visits per 100 people a year',
      kind: 'rate',
      target: 43,
      unit: 'per 100',
      source: 'CDC NCHS, NHAMCS 2021 emergency department summary (43 visits per 100 people)',
      sql: `SELECT (SELECT count(*) FROM ${CLAIMS} c WHERE place_of_service = 'emergency')::float8 * 100 / ${years} / NULLIF((SELECT count(*) FROM ${POP} p), 0) AS value, (SELECT count(*) FROM ${CLAIMS} c WHERE place_of_service = 'emergency')::float8 AS n`,
    },
    {
      key: 'use.inpatient',
      area: 'utilisation',
      label: 'Inpatient stays per 100 people a year (deliveries included)',
      kind: 'rate',
      target: 10,
      unit: 'per 100',
      source: 'AHA Hospital Statistics 2024 (about 34 million admissions) / HCUP',
      sql: `SELECT (SELECT count(*) FROM ${CLAIMS} c WHERE place_of_service = 'inpatient')::float8 * 100 / ${years} / NULLIF((SELECT count(*) FROM ${POP} p), 0) AS value, (SELECT count(*) FROM ${CLAIMS} c WHERE place_of_service = 'inpatient')::float8 AS n`,
    },
    ...(
      [
        ['knee', '27447', 235, 'Total knee replacements per 100,000 people a year', 'AAOS / AJRR (about 790,000 a year)'],
        ['hip', '27130', 135, 'Total hip replacements per 100,000 people a year', 'AAOS / AJRR (about 450,000 a year)'],
      ] as const
    ).map(
      ([key, code, target, label, source]): CalibrationTarget => ({
        key: `use.${key}`,
        area: 'utilisation',
        label,
        kind: 'rate',
        target,
        unit: 'per 100,000',
        source,
        sql: `SELECT (SELECT count(*) FROM claim_procedures WHERE claim_id > 0 AND procedure_code = '${code}')::float8 * 100000 / ${years} / NULLIF((SELECT count(*) FROM ${POP} p), 0) AS value, (SELECT count(*) FROM claim_procedures WHERE claim_id > 0 AND procedure_code = '${code}')::float8 AS n`,
      }),
    ),
    {
      key: 'use.clinicians_per_patient',
      area: 'utilisation',
      label: 'Clinicians billing type 2 diabetes or hypertension ÷ their patients (the larger; at most 0.9)',
      kind: 'rule',
      bound: 'max',
      target: 0.9,
      unit: '×',
      source: 'Medicare Part B: a few hundred thousand clinicians bill diabetes for ~9 million beneficiaries (a condition has far fewer clinicians than patients)',
      sql: `SELECT max(providers::float8 / patients) AS value, sum(patients)::float8 AS n FROM (
              SELECT left(d.icd10_code, 3) AS code, count(DISTINCT c.patient_id) AS patients, count(DISTINCT c.rendering_npi) AS providers
              FROM ${CLAIMS} c JOIN claim_diagnoses d ON d.claim_id = c.id AND d.patient_id = c.patient_id WHERE left(d.icd10_code, 3) IN ('E11', 'I10') GROUP BY 1) x`,
    },
    {
      key: 'use.repeat_joint',
      area: 'utilisation',
      label: 'Patients with more than one knee (or more than one hip) replacement',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM (SELECT c.patient_id, cp.procedure_code FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id AND cp.patient_id = c.patient_id WHERE cp.procedure_code IN ('27447', '27130') GROUP BY 1, 2 HAVING count(*) > 1) x`,
    },
    // ---------- prices ----------
    {
      key: 'prices.medicare_99213',
      area: 'prices',
      label: 'Median Medicare allowed amount for 99213',
      kind: 'rate',
      target: MEDICARE_FEE['99213'] ?? 92,
      unit: '$',
      source: 'CMS Physician Fee Schedule CY2024, national non-facility amount',
      sql: `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY cp.negotiated_amount / cp.units)::float8 AS value, count(*)::float8 AS n FROM claim_procedures cp JOIN claims c ON c.id = cp.claim_id AND c.patient_id = cp.patient_id WHERE cp.procedure_code = '99213' AND c.payer_type = 'medicare'`,
    },
    {
      key: 'prices.commercial_professional',
      area: 'prices',
      label: 'Commercial ÷ Medicare median allowed, 99213',
      kind: 'rate',
      target: 1.3,
      unit: '×',
      source: 'HCCI / RAND: commercial physician prices about 130 % of Medicare',
      sql: `SELECT (percentile_cont(0.5) WITHIN GROUP (ORDER BY cp.negotiated_amount) FILTER (WHERE c.payer_type = 'commercial') / NULLIF(percentile_cont(0.5) WITHIN GROUP (ORDER BY cp.negotiated_amount) FILTER (WHERE c.payer_type = 'medicare'), 0))::float8 AS value,
                   count(*) FILTER (WHERE c.payer_type = 'medicare')::float8 AS n FROM claim_procedures cp JOIN claims c ON c.id = cp.claim_id AND c.patient_id = cp.patient_id WHERE cp.procedure_code = '99213'`,
    },
    {
      key: 'prices.hospital_multiple',
      area: 'prices',
      label: 'Hospital commercial negotiated rates ÷ Medicare (median over price rows)',
      kind: 'rate',
      target: 2.54,
      unit: '×',
      source: 'RAND Hospital Price Transparency Study, round 5 (2024): 254 % of Medicare',
      sql: `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY fp.negotiated_dollar / m.fee)::float8 AS value, count(*)::float8 AS n
            FROM facility_prices fp JOIN facilities f ON f.id = fp.facility_id JOIN (VALUES ${Object.entries(MEDICARE_FEE)
              .filter(([c]) => !c.startsWith('J'))
              .map(([c, v]) => `('${c}', ${v}::numeric)`)
              .join(', ')}) AS m(code, fee) ON m.code = fp.procedure_code
            WHERE fp.source = 'synthetic' AND fp.payer_name <> '' AND fp.negotiated_dollar IS NOT NULL AND f.facility_type IN ('hospital', 'critical_access')`,
    },
    {
      key: 'prices.mri_dispersion',
      area: 'prices',
      label: 'Spread of knee-MRI (73721) negotiated rates across facilities, p90 ÷ p10 (at least 3)',
      kind: 'rule',
      bound: 'min',
      target: 3,
      unit: '×',
      source: 'Cooper et al., QJE 2019: MRI prices vary about twelvefold across the US',
      sql: `SELECT (percentile_cont(0.9) WITHIN GROUP (ORDER BY negotiated_dollar) / NULLIF(percentile_cont(0.1) WITHIN GROUP (ORDER BY negotiated_dollar), 0))::float8 AS value, count(*)::float8 AS n
            FROM facility_prices WHERE procedure_code = '73721' AND payer_name <> '' AND negotiated_dollar IS NOT NULL`,
    },
    {
      key: 'prices.preventive_free',
      area: 'prices',
      label: 'Preventive-visit claims with patient cost sharing (insured patients)',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'ACA §2713 and Medicare: preventive visits and annual wellness visits at $0',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM claim_procedures cp JOIN claims c ON c.id = cp.claim_id AND c.patient_id = cp.patient_id
            WHERE cp.procedure_code IN (${sqlList(Object.keys(CODE_AGE_LIMITS).filter((c) => /^(993|G043)/.test(c)))}) AND cp.patient_amount > 0 AND c.insurer_name IS NOT NULL`,
    },
    {
      key: 'prices.preventive_patient_share',
      area: 'prices',
      label: 'Preventive-visit lines (99381-99397, G0438/G0439) with any patient share, all payers (at most 2 %)',
      kind: 'rule',
      bound: 'max',
      target: 0.02,
      unit: '%',
      source: 'ACA §2713 / Medicare AWV at $0; the uninsured (8 % in 2023, Census) have about a third as many check-ups (NHIS)',
      sql: share('cp.patient_amount > 0', `claim_procedures cp WHERE cp.claim_id > 0 AND cp.procedure_code IN (${sqlList(PREVENTIVE_VISIT_CODES)})`),
    },
    {
      key: 'prices.deductible_or_copay',
      area: 'prices',
      label: 'Commercial office visits whose patient share is not exactly 20 % of the allowed amount',
      kind: 'rule',
      bound: 'min',
      target: 0.5,
      unit: '%',
      source: 'KFF Employer Health Benefits Survey 2023: copays for most office visits, deductibles averaging $1,735',
      sql: share(`abs(cp.patient_amount - round(cp.negotiated_amount * 0.2, 2)) > 0.011`, `claim_procedures cp JOIN claims c ON c.id = cp.claim_id AND c.patient_id = cp.patient_id WHERE c.payer_type = 'commercial' AND cp.procedure_code BETWEEN '99202' AND '99215'`),
    },
    {
      key: 'prices.asc_inpatient',
      area: 'prices',
      label: 'Inpatient price rows at ambulatory surgery centres',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (ASCs have no inpatient beds)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM facility_prices fp JOIN facilities f ON f.id = fp.facility_id WHERE f.facility_type = 'ambulatory_surgery' AND fp.setting <> 'outpatient'`,
    },
    {
      key: 'prices.percent_rows',
      area: 'prices',
      label: 'Percent-of-charges price rows without a percentage',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'CMS hospital price transparency file v3 (negotiated_percentage required)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM facility_prices WHERE methodology = 'percent of total billed charges' AND negotiated_percentage IS NULL`,
    },
    {
      key: 'prices.antivenom_floor',
      area: 'prices',
      label: 'Antivenom lines paid below the wholesale price per vial',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (drugs paid at least at acquisition cost; CroFab/Anavip list prices)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM claim_procedures WHERE ${ANTIVENOM_PRODUCTS.map((p) => `(procedure_code = '${p.hcpcs_code}' AND negotiated_amount / units < ${p.price_per_vial})`).join(' OR ')}`,
    },
    // ---------- pharmacy ----------
    {
      key: 'rx.generic_share',
      area: 'pharmacy',
      label: 'Fills dispensed as generics (diabetes, hypertension, depression drugs)',
      kind: 'share',
      target: 0.9,
      unit: '%',
      source: 'Association for Accessible Medicines 2023: 90 % of US prescriptions filled are generics',
      sql: share(`ndc IN (${sqlList(GENERIC_NDCS)})`, `pharmacy_claims WHERE ndc IN (${sqlList(GENERIC_ELIGIBLE_NDCS)})`),
    },
    {
      key: 'rx.generic_share_all',
      area: 'pharmacy',
      label: 'Maintenance-drug fills dispensed as generics or unbranded biosimilars (every condition)',
      kind: 'share',
      target: 0.9,
      unit: '%',
      source:
        'AAM 2023: 90 % of all US prescriptions are generics (Januvia, Jardiance, Farxiga and Entresto, still brand-only here, keep theirs)',
      sql: share(`ndc IN (${sqlList(GENERIC_NDCS)})`, `pharmacy_claims WHERE ndc IN (${sqlList(MAINTENANCE_NDCS)})`),
    },
    {
      key: 'rx.generic_share_substitutable',
      area: 'pharmacy',
      label: 'Fills of a brand with a generic equivalent dispensed as the generic',
      kind: 'share',
      target: GENERIC_DISPENSING_SHARE,
      unit: '%',
      source: 'AAM 2023 (about 90 % of prescriptions generic; substitution where a generic exists)',
      sql: share(`ndc IN (${sqlList(GENERIC_NDCS)})`, `pharmacy_claims WHERE ndc IN (${sqlList(MULTI_SOURCE_NDCS)})`),
    },
    {
      key: 'rx.distinct_ndcs',
      area: 'pharmacy',
      label: 'Distinct package NDCs on pharmacy fills (brands, generics and antivenoms)',
      kind: 'rule',
      bound: 'min',
      target: 20,
      unit: 'rows',
      source: 'Integrity (generics dispensed beside brands; issue 33 item 15 found 18 brand NDCs only)',
      sql: `SELECT count(DISTINCT ndc)::float8 AS value, count(*)::float8 AS n FROM pharmacy_claims`,
    },
    {
      key: 'rx.prescriber_scope',
      area: 'pharmacy',
      label: 'Fills written by clinicians who may not prescribe',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (prescriptive authority: physicians, NPs, PAs)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM pharmacy_claims r JOIN providers pr ON pr.npi = r.prescriber_npi WHERE pr.provider_kind NOT IN ('physician', 'nurse_practitioner', 'physician_assistant')`,
    },
    {
      key: 'rx.min_age',
      area: 'pharmacy',
      label: 'Fills below the drug’s labelled minimum age (e.g. sitagliptin for a child)',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (FDA labels)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM pharmacy_claims r JOIN patients p ON p.id = r.patient_id WHERE ${drugMinAge}`,
    },
    {
      key: 'rx.antivenom_once',
      area: 'pharmacy',
      label: 'Antivenom spend on pharmacy lines (paid on the medical claim, counted once)',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: '$',
      source: 'Integrity',
      sql: `SELECT coalesce(sum(negotiated_amount), 0)::float8 AS value, count(*)::float8 AS n FROM pharmacy_claims WHERE ndc IN (${sqlList(ANTIVENOM_NDCS)})`,
    },
    // ---------- insurers ----------
    { key: 'insurers.blues', area: 'insurers', label: 'Blue plans’ share of commercial members', kind: 'share', target: 0.36, unit: '%', source: 'BCBSA (one in three Americans); AMA Competition in Health Insurance 2023', sql: insurerShare(`insurer_name IN (SELECT name FROM insurers WHERE kind = 'blues')`, 'commercial') },
    { key: 'insurers.uhc', area: 'insurers', label: 'UnitedHealthcare’s share of commercial members', kind: 'share', target: 0.15, unit: '%', source: 'AMA Competition in Health Insurance 2023 (national, rounded)', sql: insurerShare(`insurer_name = 'UnitedHealthcare'`, 'commercial') },
    { key: 'insurers.ma_penetration', area: 'insurers', label: 'Medicare beneficiaries in Medicare Advantage', kind: 'share', target: 0.54, unit: '%', source: 'KFF, Medicare Advantage in 2024 (54 % of eligible beneficiaries)', sql: insurerShare(`insurer_name <> 'Medicare'`, 'medicare') },
    { key: 'insurers.ma_uhc', area: 'insurers', label: 'UnitedHealthcare’s share of Medicare Advantage', kind: 'share', target: 0.29, unit: '%', source: 'KFF, Medicare Advantage in 2024', sql: insurerShare(`insurer_name = 'UnitedHealthcare'`, 'medicare', `AND insurer_name <> 'Medicare'`) },
    { key: 'insurers.ma_humana', area: 'insurers', label: 'Humana’s share of Medicare Advantage', kind: 'share', target: 0.18, unit: '%', source: 'KFF, Medicare Advantage in 2024', sql: insurerShare(`insurer_name = 'Humana'`, 'medicare', `AND insurer_name <> 'Medicare'`) },
    { key: 'insurers.medicaid_mco', area: 'insurers', label: 'Medicaid enrollees in managed-care plans', kind: 'share', target: 0.74, unit: '%', source: 'KFF, Medicaid managed care penetration 2023', sql: insurerShare(`insurer_name <> 'Medicaid'`, 'medicaid') },
    { key: 'insurers.medicaid_centene', area: 'insurers', label: 'Centene’s share of Medicaid managed care', kind: 'share', target: 0.22, unit: '%', source: 'KFF, Medicaid MCO parent firm enrollment 2023', sql: insurerShare(`insurer_name IN ('Centene Medicaid health plans', 'Fidelis Care')`, 'medicaid', `AND insurer_name <> 'Medicaid'`) },
    // ---------- snakebites ----------
    {
      key: 'snakebites.per_year',
      area: 'snakebites',
      label: 'Venomous snakebites a year, national equivalent',
      kind: 'rate',
      target: SNAKEBITES_PER_YEAR,
      unit: 'rows',
      source: 'CDC/NIOSH and poison-centre series: 7,000-8,000 a year',
      sql: `SELECT count(*)::float8 / ${scale.snakebite_years} / ${scale.snakebite_fraction} AS value, count(*)::float8 AS n FROM snakebite_cases`,
    },
    {
      key: 'snakebites.used_not_bought',
      area: 'snakebites',
      label: 'Hospitals that gave an antivenom over the years but never bought it',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Integrity (hospitals buy the antivenom they use; a state of non-buyers would top the CroFab opportunity map)',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM (SELECT DISTINCT facility_id, antivenom FROM snakebite_cases WHERE antivenom IS NOT NULL AND antivenom <> '' AND units_used > 0) u
            WHERE NOT EXISTS (SELECT 1 FROM antivenom_purchases p WHERE p.facility_id = u.facility_id AND p.product = u.antivenom)`,
    },
    {
      key: 'snakebites.only_patients',
      area: 'snakebites',
      label: 'Patients whose only claims are snakebite claims (at most 2 %)',
      kind: 'rule',
      bound: 'max',
      target: 0.02,
      unit: '%',
      source: 'Integrity (a bite happens to a sampled person with a medical history, not to an extra patient)',
      sql: share(
        `EXISTS (SELECT 1 FROM claims c WHERE c.patient_id = p.id AND c.id < 0) AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.patient_id = p.id AND c.id > 0)`,
        `${POP} p`,
      ),
    },
    { key: 'snakebites.texas', area: 'snakebites', label: 'Snakebites in Texas', kind: 'share', target: 0.14, unit: '%', source: 'Poison-centre case distribution by state (rounded)', sql: share(`state = 'TX'`, 'snakebite_cases') },
    {
      key: 'snakebites.copperhead_east',
      area: 'snakebites',
      label: 'Copperhead/cottonmouth (T63.06) share of bites in NC and VA (at least half)',
      kind: 'rule',
      bound: 'min',
      target: 0.5,
      unit: '%',
      source: 'NC Poison Control: copperheads cause most bites in the state',
      sql: share(`icd10_code LIKE 'T63.06%'`, `snakebite_cases WHERE state IN ('NC', 'VA')`),
    },
    {
      key: 'snakebites.coral_range',
      area: 'snakebites',
      label: 'Coral-snake bites outside the coral snake’s range',
      kind: 'rule',
      bound: 'eq',
      target: 0,
      unit: 'rows',
      source: 'Coral snakes live in the Southeast, Texas and Arizona only',
      sql: `SELECT count(*)::float8 AS value, count(*)::float8 AS n FROM snakebite_cases WHERE icd10_code LIKE 'T63.02%' AND state NOT IN (${sqlList(CORAL_SNAKE_STATES)})`,
    },
  ]
}

/** Relative standard error of a share p over n, or of a Poisson count n. */
function relativeError(kind: TargetKind, value: number, n: number): number {
  if (n <= 0) return Infinity
  if (kind === 'share') return value > 0 && value < 1 ? Math.sqrt((1 - value) / (n * value)) : value === 0 ? Infinity : 0
  return 1 / Math.sqrt(n)
}

export function judge(t: CalibrationTarget, measured: number | null, n: number): CalibrationResult {
  const tolerance = t.kind === 'share' ? SHARE_TOLERANCE : RATE_TOLERANCE
  let status: CalibrationResult['status']
  let deviation: number | null = null
  if (measured === null || !Number.isFinite(measured)) status = t.kind === 'rule' && n === 0 ? 'small sample' : 'fail'
  else if (t.kind === 'rule') {
    deviation = measured - t.target
    const ok = t.bound === 'max' ? measured <= t.target : t.bound === 'min' ? measured >= t.target : Math.abs(measured - t.target) < 1e-9
    status = ok ? 'pass' : 'fail'
  } else {
    deviation = (measured - t.target) / t.target
    if (Math.abs(deviation) <= tolerance) status = 'pass'
    else status = relativeError(t.kind, t.kind === 'share' ? t.target : measured, n) > tolerance / 3 ? 'small sample' : 'fail'
  }
  return {
    key: t.key,
    area: t.area,
    label: t.label,
    kind: t.kind,
    unit: t.unit,
    source: t.source,
    target: t.target,
    measured,
    deviation,
    tolerance: t.kind === 'share' ? '±10 %' : t.kind === 'rate' ? '±20 %' : t.bound === 'max' ? `≤ ${t.target}` : t.bound === 'min' ? `≥ ${t.target}` : `= ${t.target}`,
    sample: n,
    status,
  }
}

/** Measures every target on the loaded data (the scale of the latest seed). */
export async function calibrationReport(client: pg.ClientBase | pg.Pool, scaleName?: Scale['name']): Promise<{ scale: Scale['name']; seed: number | null; results: CalibrationResult[] }> {
  const load = await latestSeed(client)
  const name = scaleName ?? ((load?.scale as Scale['name'] | undefined) && load!.scale in SCALES ? (load!.scale as Scale['name']) : 'demo')
  const scale = SCALES[name]
  const results: CalibrationResult[] = []
  for (const t of calibrationTargets(scale)) {
    const { rows } = await client.query<{ value: number | string | null; n: number | string | null }>(t.sql)
    const value = rows[0]?.value
    results.push(judge(t, value === null || value === undefined ? null : Number(value), Number(rows[0]?.n ?? 0)))
  }
  return { scale: name, seed: load?.seed ?? null, results }
}

const formatValue = (unit: CalibrationTarget['unit'], v: number | null) =>
  v === null
    ? '-'
    : unit === '%'
      ? `${(v * 100).toFixed(1)} %`
      : unit === '$'
        ? `$${v.toFixed(2)}`
        : unit === '×'
          ? `${v.toFixed(2)}×`
          : unit === 'rows'
            ? v.toLocaleString('en-US', { maximumFractionDigits: 0 })
            : v.toFixed(1)

/** The report as text: one line per target (area, label, target, measured, deviation, tolerance, status) and the source. */
export function formatCalibrationReport(report: { scale: string; seed: number | null; results: CalibrationResult[] }): string {
  const lines = [`Calibration report: scale ${report.scale}${report.seed !== null ? `, seed ${report.seed}` : ''}`, '']
  lines.push(`${'target'.padEnd(72)} ${'expected'.padStart(11)} ${'measured'.padStart(11)} ${'deviation'.padStart(10)} ${'tolerance'.padStart(10)}  status`)
  let area = ''
  for (const r of report.results) {
    if (r.area !== area) {
      area = r.area
      lines.push(`[${area}]`)
    }
    const deviation = r.deviation === null ? '-' : r.kind === 'rule' ? formatValue(r.unit, r.deviation) : `${r.deviation >= 0 ? '+' : ''}${(r.deviation * 100).toFixed(1)} %`
    lines.push(`  ${r.label.padEnd(70).slice(0, 70)} ${formatValue(r.unit, r.target).padStart(11)} ${formatValue(r.unit, r.measured).padStart(11)} ${deviation.padStart(10)} ${r.tolerance.padStart(10)}  ${r.status.toUpperCase()}`)
    lines.push(`      source: ${r.source}`)
  }
  const count = (s: CalibrationResult['status']) => report.results.filter((r) => r.status === s).length
  lines.push('', `${count('pass')} pass, ${count('fail')} fail, ${count('small sample')} not judged (sample too small at this scale)`)
  return lines.join('\n')
}
