import type { ProviderKind } from '../reference/provider-kinds.ts'

/**
 * Calibration targets of the synthetic national dataset. Sources and assumptions: seed/CALIBRATION.md.
 * Counts are for the full scale (6,000,000 individual providers); smaller scales keep the proportions.
 */
export const PROVIDER_MIX_FULL: Readonly<Record<Exclude<ProviderKind, 'facility'>, number>> = {
  physician: 1_000_000,
  nurse_practitioner: 385_000,
  physician_assistant: 168_000,
  dentist: 202_000,
  optometrist: 45_000,
  podiatrist: 18_000,
  physical_therapist: 240_000,
  occupational_therapist: 140_000,
  counselor: 400_000,
  psychologist: 110_000,
  social_worker: 250_000,
  chiropractor: 70_000,
  pharmacist: 330_000,
  registered_nurse: 1_300_000,
  nurse_anesthetist: 60_000,
  nurse_midwife: 14_000,
  dietitian: 75_000,
  speech_language_pathologist: 170_000,
  audiologist: 15_000,
  other: 1_008_000,
}

/** Share of doctors of osteopathic medicine among physicians (AOA/FSMB: ~13%). */
export const DO_SHARE = 0.13

export const FEMALE_SHARE: Readonly<Record<Exclude<ProviderKind, 'facility'>, number>> = {
  physician: 0.38,
  nurse_practitioner: 0.9,
  physician_assistant: 0.7,
  dentist: 0.37,
  optometrist: 0.48,
  podiatrist: 0.3,
  physical_therapist: 0.68,
  occupational_therapist: 0.88,
  counselor: 0.75,
  psychologist: 0.7,
  social_worker: 0.85,
  chiropractor: 0.3,
  pharmacist: 0.6,
  registered_nurse: 0.87,
  nurse_anesthetist: 0.6,
  nurse_midwife: 0.98,
  dietitian: 0.9,
  speech_language_pathologist: 0.96,
  audiologist: 0.84,
  other: 0.6,
}

/** Credentials by kind ([text, weight]); physicians get MD or DO from DO_SHARE. */
export const CREDENTIALS: Readonly<Record<Exclude<ProviderKind, 'facility' | 'physician'>, readonly (readonly [string, number])[]>> = {
  nurse_practitioner: [
    ['NP', 4],
    ['FNP-C', 3],
    ['APRN', 2],
    ['DNP', 1],
  ],
  physician_assistant: [
    ['PA-C', 9],
    ['PA', 1],
  ],
  dentist: [
    ['DDS', 6],
    ['DMD', 4],
  ],
  optometrist: [['OD', 1]],
  podiatrist: [['DPM', 1]],
  physical_therapist: [
    ['PT', 4],
    ['DPT', 6],
  ],
  occupational_therapist: [
    ['OTR/L', 8],
    ['OT', 2],
  ],
  counselor: [
    ['LPC', 5],
    ['LMHC', 3],
    ['LCPC', 2],
  ],
  psychologist: [
    ['PhD', 6],
    ['PsyD', 4],
  ],
  social_worker: [
    ['LCSW', 9],
    ['LICSW', 1],
  ],
  chiropractor: [['DC', 1]],
  pharmacist: [
    ['PharmD', 8],
    ['RPh', 2],
  ],
  registered_nurse: [
    ['RN', 7],
    ['BSN, RN', 3],
  ],
  nurse_anesthetist: [['CRNA', 1]],
  nurse_midwife: [['CNM', 1]],
  dietitian: [
    ['RD', 6],
    ['RDN', 4],
  ],
  speech_language_pathologist: [['CCC-SLP', 1]],
  audiologist: [['AuD', 1]],
  other: [
    ['', 6],
    ['EMT-P', 1],
    ['LMT', 1],
    ['BCBA', 1],
    ['MT(ASCP)', 1],
  ],
}

/** Taxonomy weights within a kind (AAMC Physician Specialty Data Report 2022 shares, rounded). */
export const TAXONOMY_WEIGHTS: Readonly<Record<string, number>> = {
  '207Q00000X': 13,
  '207R00000X': 12,
  '208D00000X': 1.2,
  '208000000X': 6.5,
  '207P00000X': 4.6,
  '207PT0002X': 0.05,
  '207V00000X': 4.4,
  '207L00000X': 4.5,
  '2084P0800X': 4,
  '2085R0202X': 3.5,
  '208600000X': 2.7,
  '207RC0000X': 2.6,
  '207RI0011X': 0.5,
  '207RC0001X': 0.25,
  '207X00000X': 2,
  '207XX0005X': 0.2,
  '2084N0400X': 1.5,
  '207N00000X': 1.3,
  '207W00000X': 1.9,
  '207RG0100X': 1.6,
  '207RH0003X': 1.5,
  '207RX0202X': 0.5,
  '207RP1001X': 1.3,
  '207RN0300X': 1,
  '207RE0101X': 0.8,
  '207RR0500X': 0.6,
  '208800000X': 1.1,
  '207Y00000X': 1,
  '208100000X': 1.1,
  '207K00000X': 0.5,
  '207RI0200X': 0.9,
  '207T00000X': 0.6,
  '208200000X': 0.8,
  '2086S0129X': 0.4,
  '208G00000X': 0.5,
  '207RG0300X': 0.3,
  '207QG0300X': 0.2,
  '2080P0216X': 0.2,
  '207ZP0102X': 1.2,
  '363LF0000X': 70,
  '363L00000X': 8,
  '363LA2200X': 6,
  '363LP0808X': 6,
  '363LP0200X': 3,
  '363LW0102X': 2,
  '363LG0600X': 1,
  '363LA2100X': 4,
  '363A00000X': 6,
  '363AM0700X': 3,
  '363AS0400X': 1,
  '122300000X': 3,
  '1223G0001X': 6,
  '1223X0400X': 1,
  '101Y00000X': 3,
  '101YM0800X': 6,
  '101YA0400X': 1,
  '103T00000X': 4,
  '103TC0700X': 6,
  '390200000X': 5,
  '146L00000X': 3,
  '225700000X': 2,
  '103K00000X': 1,
  '246QM0706X': 1,
  '2471R0002X': 1,
  '174400000X': 1,
}

/** Taxonomy codes that count as primary care (the default specialty for most condition visits). */
export const PRIMARY_CARE = [
  '207Q00000X',
  '207R00000X',
  '208D00000X',
  '363LF0000X',
  '363L00000X',
  '363A00000X',
  '363AM0700X',
  '207QG0300X',
  '207RG0300X',
]

export type AgeBand = 'child' | 'young_adult' | 'middle_age' | 'senior'
export function ageBand(age: number): AgeBand {
  return age < 18 ? 'child' : age < 45 ? 'young_adult' : age < 65 ? 'middle_age' : 'senior'
}

/** US resident population by age (Census Vintage 2023, rounded): 0-17, 18-44, 45-64, 65+. */
export const AGE_BANDS: readonly (readonly [AgeBand, number, number, number])[] = [
  ['child', 0, 17, 0.22],
  ['young_adult', 18, 44, 0.355],
  ['middle_age', 45, 64, 0.245],
  ['senior', 65, 99, 0.18],
]

export interface Condition {
  key: string
  label: string
  /** Prevalence by age band (child, 18-44, 45-64, 65+); the adult weighted average is the published target. */
  prevalence: Readonly<Record<AgeBand, number>>
  /** Published adult prevalence the bands were fitted to (total prevalence where diagnosis lags). */
  adult_target: number
  /** Diagnosed (claims-coded) adult prevalence where it differs from the total (realism.DIAGNOSED_SHARE). */
  diagnosed_adult_target?: number
  /** Billable ICD-10-CM codes with weights. */
  icd10: readonly (readonly [string, number])[]
  specialties: readonly string[]
  procedures: readonly string[]
  /** Visits a year attributable to the condition. */
  visits_per_year: number
}

export const CONDITIONS: readonly Condition[] = [
  {
    key: 'type2_diabetes',
    label: 'Type 2 diabetes',
    adult_target: 0.11,
    prevalence: { child: 0.002, young_adult: 0.04, middle_age: 0.14, senior: 0.21 },
    icd10: [
      ['E11.9', 5],
      ['E11.65', 3],
      ['E11.22', 1],
      ['E11.40', 1],
      ['E11.42', 1],
      ['E11.649', 0.5],
      ['E11.21', 0.5],
    ],
    specialties: [...PRIMARY_CARE, '207RE0101X'],
    procedures: ['99213', '99214', '83036', '80053', '82043', '80061'],
    visits_per_year: 2.5,
  },
  {
    key: 'hypertension',
    label: 'Hypertension',
    adult_target: 0.47,
    diagnosed_adult_target: 0.32,
    prevalence: { child: 0.01, young_adult: 0.26, middle_age: 0.56, senior: 0.76 },
    icd10: [
      ['I10', 20],
      ['I11.9', 1],
      ['I12.9', 1],
      ['I13.10', 0.3],
    ],
    specialties: [...PRIMARY_CARE, '207RC0000X'],
    procedures: ['99213', '99214', '80048', '93000'],
    visits_per_year: 1.5,
  },
  {
    key: 'osteoarthritis',
    label: 'Osteoarthritis',
    adult_target: 0.1,
    prevalence: { child: 0, young_adult: 0.03, middle_age: 0.12, senior: 0.22 },
    icd10: [
      ['M17.11', 2],
      ['M17.12', 2],
      ['M17.0', 2],
      ['M16.11', 1],
      ['M16.12', 1],
      ['M19.90', 2],
      ['M15.0', 1],
      ['M18.0', 0.5],
    ],
    specialties: [...PRIMARY_CARE, '207X00000X', '207XX0005X', '208100000X', '225100000X'],
    procedures: ['99213', '73562', '20610', '97110', '97140', '73721', '27447', '27130'],
    visits_per_year: 2,
  },
  {
    key: 'rheumatoid_arthritis',
    label: 'Rheumatoid arthritis',
    adult_target: 0.0075,
    prevalence: { child: 0.0003, young_adult: 0.003, middle_age: 0.009, senior: 0.014 },
    icd10: [
      ['M06.9', 5],
      ['M05.79', 1],
      ['M06.09', 1],
      ['M05.9', 1],
    ],
    specialties: ['207RR0500X', ...PRIMARY_CARE],
    procedures: ['99214', '86431', '85025', 'J1745', '96365', 'J0135'],
    visits_per_year: 4,
  },
  {
    key: 'asthma',
    label: 'Asthma',
    adult_target: 0.08,
    prevalence: { child: 0.062, young_adult: 0.085, middle_age: 0.078, senior: 0.075 },
    icd10: [
      ['J45.909', 6],
      ['J45.20', 2],
      ['J45.30', 1],
      ['J45.40', 1],
      ['J45.901', 1],
    ],
    specialties: [...PRIMARY_CARE, '208000000X', '207RP1001X', '207K00000X'],
    procedures: ['99213', '94010', '94060', 'J7613'],
    visits_per_year: 1.5,
  },
  {
    key: 'copd',
    label: 'COPD',
    adult_target: 0.06,
    prevalence: { child: 0, young_adult: 0.02, middle_age: 0.07, senior: 0.12 },
    icd10: [
      ['J44.9', 6],
      ['J44.1', 2],
      ['J44.0', 1],
    ],
    specialties: [...PRIMARY_CARE, '207RP1001X'],
    procedures: ['99214', '94010', '71046', '71250', 'J7613'],
    visits_per_year: 2.5,
  },
  {
    key: 'heart_failure',
    label: 'Heart failure',
    adult_target: 0.025,
    prevalence: { child: 0, young_adult: 0.005, middle_age: 0.02, senior: 0.07 },
    icd10: [
      ['I50.9', 3],
      ['I50.22', 1],
      ['I50.32', 1],
      ['I50.42', 0.5],
    ],
    specialties: ['207RC0000X', ...PRIMARY_CARE],
    procedures: ['99214', '93306', '93000', '80048', '99223'],
    visits_per_year: 4,
  },
  {
    key: 'ckd',
    label: 'Chronic kidney disease',
    adult_target: 0.14,
    diagnosed_adult_target: 0.05,
    prevalence: { child: 0.001, young_adult: 0.06, middle_age: 0.12, senior: 0.33 },
    icd10: [
      ['N18.30', 3],
      ['N18.31', 1],
      ['N18.32', 1],
      ['N18.4', 1],
      ['N18.9', 3],
      ['N18.2', 2],
    ],
    specialties: [...PRIMARY_CARE, '207RN0300X'],
    procedures: ['99214', '80053', '82043', '81003'],
    visits_per_year: 1.5,
  },
  {
    key: 'depression',
    label: 'Depression',
    adult_target: 0.084,
    prevalence: { child: 0.03, young_adult: 0.1, middle_age: 0.08, senior: 0.06 },
    icd10: [
      ['F32.9', 4],
      ['F32.A', 2],
      ['F33.1', 1],
      ['F32.1', 1],
      ['F33.9', 1],
    ],
    specialties: ['2084P0800X', '103TC0700X', '101YM0800X', '1041C0700X', '363LP0808X', ...PRIMARY_CARE],
    procedures: ['90791', '90834', '90837', '90832', '99213'],
    visits_per_year: 5,
  },
  {
    key: 'obesity',
    label: 'Obesity',
    adult_target: 0.404,
    diagnosed_adult_target: 0.19,
    prevalence: { child: 0.197, young_adult: 0.38, middle_age: 0.44, senior: 0.4 },
    icd10: [
      ['E66.9', 6],
      ['E66.01', 2],
      ['E66.811', 0.5],
      ['E66.812', 0.5],
    ],
    specialties: [...PRIMARY_CARE],
    procedures: ['99213', '80061', '83036'],
    visits_per_year: 0.5,
  },
]

/** Payer type shares by age band (Census CPS/ACS health insurance coverage 2023, primary coverage, rounded). */
export type PayerType = 'commercial' | 'medicare' | 'medicaid' | 'other'
export const PAYER_MIX: Readonly<Record<AgeBand, Readonly<Record<PayerType, number>>>> = {
  child: { commercial: 0.53, medicaid: 0.4, medicare: 0, other: 0.07 },
  young_adult: { commercial: 0.66, medicaid: 0.18, medicare: 0.02, other: 0.14 },
  middle_age: { commercial: 0.7, medicaid: 0.13, medicare: 0.05, other: 0.12 },
  senior: { commercial: 0.05, medicaid: 0.02, medicare: 0.92, other: 0.01 },
}

/** Venomous snakebites a year, national (CDC/NIOSH and poison-centre literature: 7,000-8,000). */
export const SNAKEBITES_PER_YEAR = 7_500
/** Share of national venomous snakebites by state (poison-centre case distribution; South and Southwest heavy). */
export const SNAKEBITE_STATE_SHARE: Readonly<Record<string, number>> = {
  TX: 14,
  NC: 10,
  GA: 6,
  FL: 6,
  AZ: 6,
  VA: 5,
  TN: 4,
  AL: 4,
  AR: 4,
  OK: 4,
  SC: 4,
  CA: 4,
  LA: 3,
  MS: 3,
  MO: 3,
  KY: 2.5,
  WV: 2,
  NM: 2,
  CO: 1,
  KS: 1,
  MD: 1,
  PA: 1,
  OH: 1,
  NV: 0.8,
  UT: 0.7,
  IN: 0.7,
  IL: 0.7,
  OR: 0.5,
  WA: 0.4,
  ID: 0.4,
  NY: 0.3,
  NJ: 0.3,
  DE: 0.2,
  NE: 0.3,
  IA: 0.2,
  WY: 0.2,
  MT: 0.2,
  SD: 0.1,
  MN: 0.1,
  WI: 0.1,
  MI: 0.1,
  MA: 0.1,
  CT: 0.1,
  DC: 0.05,
  HI: 0,
  AK: 0,
  ME: 0.02,
  NH: 0.02,
  VT: 0.02,
  RI: 0.02,
  ND: 0.05,
}
/** Share of envenomations treated with antivenom, and CroFab's share of antivenom-treated cases. */
export const ANTIVENOM_TREATED_SHARE = 0.6
export const CROFAB_SHARE = 0.7
/** Snakebite ICD-10-CM codes (T63.0 family, accidental, initial encounter) with weights. */
export const SNAKEBITE_CODES: readonly (readonly [string, number])[] = [
  ['T63.011A', 6],
  ['T63.061A', 2],
  ['T63.001A', 2],
  ['T63.021A', 0.2],
  ['T63.091A', 0.5],
]

/** Facility counts at full scale (AHA Fast Facts 2024: 6,120 hospitals; AHRQ Compendium: ~650 systems). */
export const FACILITY_MIX_FULL = {
  hospital: 4_730,
  critical_access: 1_370,
  ambulatory_surgery: 6_000,
  urgent_care: 14_000,
  clinic: 20_000,
  imaging: 6_000,
} as const
export type FacilityType = keyof typeof FACILITY_MIX_FULL
export const FACILITY_TAXONOMY: Readonly<Record<FacilityType, string>> = {
  hospital: '282N00000X',
  critical_access: '282NC0060X',
  ambulatory_surgery: '261QA1903X',
  urgent_care: '261QU0200X',
  clinic: '261QP2300X',
  imaging: '261QR0200X',
}
export const FACILITY_LEVEL_1: Readonly<Record<FacilityType, string>> = {
  hospital: 'Hospital',
  critical_access: 'Hospital',
  ambulatory_surgery: 'Ambulatory Surgery Center',
  urgent_care: 'Urgent Care',
  clinic: 'Clinic',
  imaging: 'Imaging Center',
}
/** Share of hospitals that belong to a health system (AHA: about two thirds). */
export const SYSTEM_AFFILIATED_SHARE = 0.67

/** Negotiated rate as a share of the gross charge, by payer type (median; RAND hospital price studies). */
export const NEGOTIATED_RATIO: Readonly<Record<PayerType, number>> = { commercial: 0.55, medicare: 0.3, medicaid: 0.25, other: 0.6 }
/** Patient share of the negotiated amount (coinsurance/deductible), by payer type. */
export const PATIENT_SHARE: Readonly<Record<PayerType, number>> = { commercial: 0.2, medicare: 0.2, medicaid: 0.02, other: 1 }
