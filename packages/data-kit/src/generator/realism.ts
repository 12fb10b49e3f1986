import type { AgeBand, PayerType } from './calibration.ts'

/**
 * Realism tables of the synthetic dataset (issue 10): the age-sex pyramid, physician density by state, visit
 * coding, utilisation, Medicare fee levels and payer multiples, plan cost sharing, generic drugs, insurer
 * market shares and snake species by state. Sources and rounding: seed/CALIBRATION.md.
 */

// ---------- population ----------
/**
 * US resident population by 5-year age group, percent, and the female share of each group (Census Vintage
 * 2023 national estimates by age and sex, rounded). The last group spans 85-99.
 */
export const AGE_PYRAMID: readonly (readonly [from: number, to: number, percent: number, female: number])[] = [
  [0, 4, 5.6, 0.489],
  [5, 9, 5.9, 0.489],
  [10, 14, 6.2, 0.488],
  [15, 19, 6.5, 0.488],
  [20, 24, 6.5, 0.49],
  [25, 29, 6.6, 0.492],
  [30, 34, 6.9, 0.494],
  [35, 39, 6.7, 0.498],
  [40, 44, 6.5, 0.5],
  [45, 49, 5.9, 0.503],
  [50, 54, 6.1, 0.505],
  [55, 59, 6.2, 0.51],
  [60, 64, 6.4, 0.517],
  [65, 69, 5.6, 0.527],
  [70, 74, 4.7, 0.54],
  [75, 79, 3.4, 0.556],
  [80, 84, 2.2, 0.583],
  [85, 99, 2.0, 0.62],
]
/** Within 85-99, each further year of age is this much rarer than the one before (survival). */
export const OLDEST_AGE_DECAY = 0.82

/**
 * Active physicians per 100,000 residents by state (AAMC State Physician Workforce Data Book 2023, rounded to
 * the nearest 5; DC's figure reflects its role as a regional centre). Other clinicians follow population.
 */
export const PHYSICIANS_PER_100K: Readonly<Record<string, number>> = {
  AL: 225,
  AK: 285,
  AZ: 245,
  AR: 215,
  CA: 280,
  CO: 290,
  CT: 355,
  DE: 285,
  DC: 760,
  FL: 260,
  GA: 235,
  HI: 320,
  ID: 190,
  IL: 300,
  IN: 245,
  IA: 230,
  KS: 245,
  KY: 250,
  LA: 270,
  ME: 355,
  MD: 350,
  MA: 450,
  MI: 300,
  MN: 320,
  MS: 200,
  MO: 285,
  MT: 255,
  NE: 260,
  NV: 205,
  NH: 330,
  NJ: 310,
  NM: 260,
  NY: 375,
  NC: 265,
  ND: 270,
  OH: 310,
  OK: 215,
  OR: 305,
  PA: 340,
  RI: 395,
  SC: 240,
  SD: 250,
  TN: 270,
  TX: 230,
  UT: 220,
  VT: 395,
  VA: 275,
  WA: 290,
  WV: 285,
  WI: 285,
  WY: 195,
}

// ---------- comorbidity ----------
/**
 * Latent (total) prevalence is CONDITIONS' band prevalence; risk factors raise it with relative risks
 * (normalised so that the band's marginal prevalence holds), and only a share is diagnosed and so coded in
 * claims. Keys are CONDITIONS keys.
 */
export const RISK_FACTORS: Readonly<Record<string, readonly (readonly [factor: string, relativeRisk: number])[]>> = {
  type2_diabetes: [['obesity', 2.8]],
  hypertension: [
    ['obesity', 1.7],
    ['type2_diabetes', 1.5],
  ],
  ckd: [
    ['type2_diabetes', 3.2],
    ['hypertension', 1.8],
  ],
  heart_failure: [
    ['hypertension', 2.2],
    ['type2_diabetes', 1.8],
    ['ckd', 1.6],
  ],
  osteoarthritis: [['obesity', 1.6]],
  copd: [],
  asthma: [['obesity', 1.3]],
  depression: [],
  rheumatoid_arthritis: [],
  obesity: [],
}
/** Order in which conditions are drawn (risk factors first). */
export const CONDITION_ORDER = [
  'obesity',
  'type2_diabetes',
  'hypertension',
  'ckd',
  'heart_failure',
  'osteoarthritis',
  'rheumatoid_arthritis',
  'asthma',
  'copd',
  'depression',
] as const
/**
 * Share of people with the condition who are diagnosed, so coded on claims, by age band. Hypertension:
 * NHANES 2017-2020 total 47% against 32% of adults ever told by a clinician (BRFSS 2021). CKD: CDC CKD
 * Surveillance (14% total, most undiagnosed); coded CKD in USRDS Medicare claims about 14% at 65+; people
 * with diabetes are screened (albuminuria tests), so twice as likely to be diagnosed. Obesity: measured 40%
 * (NHANES) against about half coded in claims. Other conditions: coded ≈ diagnosed prevalence.
 */
export const DIAGNOSED_SHARE: Readonly<Record<string, Readonly<Record<AgeBand, number>>>> = {
  hypertension: { child: 0.5, young_adult: 0.46, middle_age: 0.71, senior: 0.79 },
  ckd: { child: 0.3, young_adult: 0.08, middle_age: 0.2, senior: 0.27 },
  obesity: { child: 0.45, young_adult: 0.45, middle_age: 0.5, senior: 0.5 },
}
/** People with diabetes are this many times as likely to have their CKD diagnosed (capped at 95%). */
export const CKD_DIAGNOSIS_BOOST_DIABETES = 2
/** Youngest age at which a condition is drawn (no depression before 12, no obesity before 2, no adult-onset disease in children). */
export const CONDITION_MIN_AGE: Readonly<Record<string, number>> = {
  obesity: 2,
  depression: 12,
  type2_diabetes: 10,
  hypertension: 8,
  ckd: 5,
  heart_failure: 18,
  osteoarthritis: 18,
  rheumatoid_arthritis: 16,
  asthma: 2,
  copd: 18,
}

// ---------- visit coding ----------
/**
 * Office E/M levels, established patients (CMS Medicare Part B national summary 2023, office visits 99211-99215,
 * rounded): 99213 and 99214 about 43 : 48 with ~9 % other levels.
 */
export const EM_ESTABLISHED: readonly (readonly [string, number])[] = [
  ['99211', 1],
  ['99212', 3.5],
  ['99213', 43],
  ['99214', 48],
  ['99215', 4.5],
]
/** New-patient office E/M levels (same source, 99202-99205). */
export const EM_NEW: readonly (readonly [string, number])[] = [
  ['99202', 5],
  ['99203', 42],
  ['99204', 43],
  ['99205', 10],
]
/** Emergency department E/M levels (CMS Part B national summary 2023, 99281-99285, rounded). */
export const ED_LEVELS: readonly (readonly [string, number])[] = [
  ['99281', 2],
  ['99282', 6],
  ['99283', 25],
  ['99284', 36],
  ['99285', 31],
]
/** Preventive visit codes by age at service: [from, to, new patient, established]. */
export const PREVENTIVE_CODES: readonly (readonly [number, number, string, string])[] = [
  [0, 0, '99381', '99391'],
  [1, 4, '99382', '99392'],
  [5, 11, '99383', '99393'],
  [12, 17, '99384', '99394'],
  [18, 39, '99385', '99395'],
  [40, 64, '99386', '99396'],
  [65, 200, '99387', '99397'],
]
/** Age limits of age-specific codes (the integrity checks of the calibration report use the same table). */
export const CODE_AGE_LIMITS: Readonly<Record<string, readonly [number, number]>> = Object.fromEntries([
  ...PREVENTIVE_CODES.flatMap(([from, to, n, e]) => [
    [n, [from, to]],
    [e, [from, to]],
  ]),
  ['G0438', [65, 200]],
  ['G0439', [65, 200]],
  ['27447', [18, 200]],
  ['27130', [18, 200]],
  ['59400', [12, 55]],
  ['59510', [12, 55]],
  ['77067', [35, 200]],
  ['G0121', [45, 200]],
])

// ---------- utilisation ----------
/**
 * Emergency department visits per person a year by age band before payer and condition multipliers,
 * normalised so that the population averages 43 per 100 (NCHS NHAMCS 2021: 43 visits per 100 people).
 * Medicaid enrollees visit about twice as often; chronic conditions add to the rate.
 */
export const ED_VISITS_PER_100 = 43
export const ED_RELATIVE: Readonly<Record<AgeBand, number>> & { infant: number; oldest: number } = {
  infant: 1.6,
  child: 0.75,
  young_adult: 1.05,
  middle_age: 0.9,
  senior: 1.05,
  oldest: 1.6,
}
export const ED_PAYER_RELATIVE: Readonly<Record<PayerType, number>> = { commercial: 0.75, medicare: 1, medicaid: 1.9, other: 1.1 }
/** Inpatient stays per 100 people a year, deliveries included (AHA/HCUP: about 33 million stays, ~10 per 100). */
export const INPATIENT_STAYS_PER_100 = 10
export const INPATIENT_RELATIVE: Readonly<Record<AgeBand, number>> & { infant: number; oldest: number } = {
  infant: 0.5,
  child: 0.2,
  young_adult: 0.45,
  middle_age: 0.9,
  senior: 2.2,
  oldest: 3.4,
}
/** Condition multipliers of the ED and inpatient rates. */
export const CONDITION_UTILISATION: Readonly<Record<string, number>> = {
  heart_failure: 2.6,
  copd: 1.9,
  ckd: 1.5,
  type2_diabetes: 1.3,
  asthma: 1.3,
  depression: 1.2,
}
/** Births per 1,000 women aged 15-44 a year (CDC NVSS 2023: 54.5); 32 % by caesarean. */
export const BIRTHS_PER_1000_WOMEN = 54.5
export const CESAREAN_SHARE = 0.32
/** Joint replacements per 100,000 people a year (AJRR/AAOS: ~790,000 knees and ~450,000 hips a year). */
export const KNEE_REPLACEMENTS_PER_100K = 235
export const HIP_REPLACEMENTS_PER_100K = 135
/** Where a joint replacement happens: inpatient hospital, hospital outpatient, surgery centre (CMS/AJRR 2023). */
export const JOINT_SETTING: readonly (readonly ['inpatient' | 'outpatient' | 'asc', number])[] = [
  ['inpatient', 0.45],
  ['outpatient', 0.4],
  ['asc', 0.15],
]
/** Share of office visits on a Saturday (NAMCS: weekend office visits are a few percent); none on Sundays. */
export const SATURDAY_OFFICE_SHARE = 0.02

// ---------- prices ----------
/**
 * Medicare allowed amount of a service in its usual setting, USD, rounded: physician services from the CY2024
 * Physician Fee Schedule national non-facility amounts (conversion factor $33.29), lab tests from the CY2024
 * Clinical Laboratory Fee Schedule, hospital services as OPPS/IPPS payment plus the professional fee
 * (e.g. a knee replacement: MS-DRG 470 plus the surgeon), drugs at ASP + 6 %.
 */
export const MEDICARE_FEE: Readonly<Record<string, number>> = {
  '99202': 73,
  '99203': 113,
  '99204': 169,
  '99205': 223,
  '99211': 24,
  '99212': 57,
  '99213': 92,
  '99214': 130,
  '99215': 184,
  '99381': 120,
  '99382': 125,
  '99383': 125,
  '99384': 135,
  '99385': 130,
  '99386': 150,
  '99387': 165,
  '99391': 105,
  '99392': 115,
  '99393': 115,
  '99394': 125,
  '99395': 115,
  '99396': 125,
  '99397': 135,
  G0438: 170,
  G0439: 131,
  '99281': 75,
  '99282': 140,
  '99283': 260,
  '99284': 450,
  '99285': 690,
  '99291': 900,
  '99221': 105,
  '99222': 140,
  '99223': 205,
  '99231': 62,
  '99232': 95,
  '99233': 140,
  '36415': 3,
  '80048': 8.5,
  '80053': 10.6,
  '80061': 13.4,
  '83036': 9.7,
  '82947': 3.9,
  '85025': 7.8,
  '84443': 16.8,
  '81003': 2.3,
  '82043': 5.7,
  '85610': 4.3,
  '85384': 9.5,
  '86431': 5.6,
  '71046': 31,
  '73562': 36,
  '72100': 33,
  '70551': 230,
  '70553': 320,
  '72148': 220,
  '73721': 220,
  '74177': 300,
  '71250': 125,
  '71271': 95,
  '76700': 115,
  '77067': 135,
  '77080': 40,
  '93000': 16,
  '93306': 210,
  '93015': 75,
  '78452': 420,
  '93458': 3100,
  '92928': 11500,
  '45378': 880,
  '45380': 960,
  '45385': 1050,
  G0121: 880,
  '43239': 820,
  '27447': 15500,
  '27130': 15800,
  '29881': 2400,
  '29827': 3900,
  '66984': 1700,
  '47562': 6200,
  '49505': 3600,
  '63030': 7400,
  '22551': 18500,
  '20610': 62,
  '64483': 420,
  '11042': 130,
  '17000': 70,
  '55700': 830,
  '52000': 390,
  '59400': 4200,
  '59510': 6900,
  '97110': 29,
  '97140': 26,
  '97161': 100,
  '97162': 100,
  '90791': 175,
  '90832': 75,
  '90834': 100,
  '90837': 150,
  '94010': 35,
  '94060': 55,
  '95810': 620,
  '96365': 160,
  '96366': 35,
  '96413': 280,
  '90686': 20,
  '90471': 17,
  G0008: 35,
  J0840: 3400,
  J0841: 1600,
  J1745: 55,
  J0135: 1250,
  J3420: 1,
  J1100: 0.1,
  J1815: 0.4,
  J7613: 0.05,
  E0601: 480,
  E0114: 30,
  A4253: 28,
}
/**
 * Payer allowed amounts relative to Medicare: commercial professional services ~1.3× and hospital services
 * ~2.5× (RAND hospital price transparency round 5: 254 % of Medicare; HCCI), Medicaid ~0.72× (KFF
 * Medicaid-to-Medicare fee index 2019), TRICARE ≈ Medicare. Drugs are paid nearer cost by every payer.
 */
export const COMMERCIAL_MULTIPLE = { professional: 1.3, hospital: 2.5, asc: 1.6, drug: 1.35 } as const
export const MEDICAID_MULTIPLE = { professional: 0.72, hospital: 0.85, drug: 1.0 } as const
/** Per-facility dispersion (log-normal sigma) of the commercial multiple, and per payer within a facility. */
export const FACILITY_PRICE_SIGMA = 0.45
export const PAYER_PRICE_SIGMA = 0.2
/** Gross charges (chargemaster) relative to Medicare: hospitals ~3-5×, physician offices ~2×. */
export const CHARGE_MARKUP = { professional: 2.1, hospital: 4 } as const

/** Commercial plan designs (KFF Employer Health Benefits Survey 2023, rounded): single deductible, copays, coinsurance. */
export interface PlanDesign {
  kind: 'commercial_ppo' | 'commercial_hdhp' | 'medicare_ffs' | 'medicare_advantage' | 'medicaid' | 'tricare' | 'uninsured'
  deductible: number
  pcp_copay: number | null
  specialist_copay: number | null
  ed_copay: number | null
  inpatient_copay: number | null
  coinsurance: number
  rx_generic_copay: number
  rx_brand_copay: number
}
/** KFF EHBS 2023: 29 % of covered workers in a high-deductible plan; average single deductible $1,735. */
export const COMMERCIAL_PLANS: readonly (readonly [PlanDesign, number])[] = [
  [
    {
      kind: 'commercial_ppo',
      deductible: 500,
      pcp_copay: 25,
      specialist_copay: 45,
      ed_copay: 250,
      inpatient_copay: null,
      coinsurance: 0.2,
      rx_generic_copay: 10,
      rx_brand_copay: 40,
    },
    18,
  ],
  [
    {
      kind: 'commercial_ppo',
      deductible: 1000,
      pcp_copay: 25,
      specialist_copay: 50,
      ed_copay: 300,
      inpatient_copay: null,
      coinsurance: 0.2,
      rx_generic_copay: 10,
      rx_brand_copay: 45,
    },
    20,
  ],
  [
    {
      kind: 'commercial_ppo',
      deductible: 1500,
      pcp_copay: 30,
      specialist_copay: 50,
      ed_copay: null,
      inpatient_copay: null,
      coinsurance: 0.2,
      rx_generic_copay: 15,
      rx_brand_copay: 50,
    },
    15,
  ],
  [
    {
      kind: 'commercial_ppo',
      deductible: 0,
      pcp_copay: 20,
      specialist_copay: 40,
      ed_copay: 200,
      inpatient_copay: 500,
      coinsurance: 0.1,
      rx_generic_copay: 10,
      rx_brand_copay: 35,
    },
    10,
  ],
  [
    {
      kind: 'commercial_ppo',
      deductible: 2500,
      pcp_copay: 35,
      specialist_copay: 60,
      ed_copay: null,
      inpatient_copay: null,
      coinsurance: 0.25,
      rx_generic_copay: 15,
      rx_brand_copay: 60,
    },
    8,
  ],
  [
    {
      kind: 'commercial_hdhp',
      deductible: 3200,
      pcp_copay: null,
      specialist_copay: null,
      ed_copay: null,
      inpatient_copay: null,
      coinsurance: 0.2,
      rx_generic_copay: 0,
      rx_brand_copay: 0,
    },
    29,
  ],
]
/** Medicare Part B (2025): $257 deductible, 20 % coinsurance; Part A: $1,676 per inpatient stay. */
export const MEDICARE_PART_B_DEDUCTIBLE = 257
export const MEDICARE_PART_A_DEDUCTIBLE = 1676
export const MEDICARE_FFS_PLAN: PlanDesign = {
  kind: 'medicare_ffs',
  deductible: MEDICARE_PART_B_DEDUCTIBLE,
  pcp_copay: null,
  specialist_copay: null,
  ed_copay: null,
  inpatient_copay: MEDICARE_PART_A_DEDUCTIBLE,
  coinsurance: 0.2,
  rx_generic_copay: 2,
  rx_brand_copay: 47,
}
/** Medicare Advantage (KFF 2024 averages): $0-10 primary care, ~$40 specialist, ~$100 ED, ~$330 a day inpatient. */
export const MEDICARE_ADVANTAGE_PLAN: PlanDesign = {
  kind: 'medicare_advantage',
  deductible: 0,
  pcp_copay: 5,
  specialist_copay: 40,
  ed_copay: 100,
  inpatient_copay: 330,
  coinsurance: 0.2,
  rx_generic_copay: 2,
  rx_brand_copay: 47,
}
/** Medicaid: nominal cost sharing (42 CFR 447.52), most states $0-4. */
export const MEDICAID_PLAN: PlanDesign = {
  kind: 'medicaid',
  deductible: 0,
  pcp_copay: 0,
  specialist_copay: 4,
  ed_copay: 8,
  inpatient_copay: 75,
  coinsurance: 0,
  rx_generic_copay: 1,
  rx_brand_copay: 4,
}
export const TRICARE_PLAN: PlanDesign = {
  kind: 'tricare',
  deductible: 0,
  pcp_copay: 0,
  specialist_copay: 0,
  ed_copay: 0,
  inpatient_copay: 0,
  coinsurance: 0,
  rx_generic_copay: 0,
  rx_brand_copay: 0,
}
export const UNINSURED_PLAN: PlanDesign = {
  kind: 'uninsured',
  deductible: 0,
  pcp_copay: null,
  specialist_copay: null,
  ed_copay: null,
  inpatient_copay: null,
  coinsurance: 1,
  rx_generic_copay: 0,
  rx_brand_copay: 0,
}
/** Services with $0 cost sharing (ACA preventive services; Medicare annual wellness visits and screenings). */
export const ZERO_COST_SHARING_CODES: ReadonlySet<string> = new Set([
  ...PREVENTIVE_CODES.flatMap(([, , n, e]) => [n, e]),
  'G0438',
  'G0439',
  'G0121',
  '77067',
  '90686',
  '90471',
  'G0008',
  '71271',
])

// ---------- insurers ----------
/**
 * Market shares by line of business, percent. Commercial: the Blue plans cover about a third of Americans
 * (BCBSA) and ~36 % of commercial members; UnitedHealthcare ~15 %, Aetna ~11 %, Cigna ~9 % (AMA Competition
 * in Health Insurance 2023, national shares rounded); regional and other plans the remaining 18 %. Medicare: 54 % of beneficiaries in Medicare Advantage
 * (KFF 2024), MA shares UnitedHealthcare 29 %, Humana 18 %, Aetna 12 %, Blue plans 14 %, Kaiser 5 %,
 * WellCare (Centene) 4 %. Medicaid: 74 % in comprehensive managed care; MCO shares Centene 22 %, Elevance
 * 12 %, UnitedHealthcare 11 %, Molina 8 %, Aetna 5 % (KFF 2023). 'blues' stands for the state's Blue plans.
 */
export const COMMERCIAL_SHARES: readonly (readonly [string, number])[] = [
  ['blues', 36],
  ['UnitedHealthcare', 15],
  ['Aetna', 11],
  ['Cigna Healthcare', 9],
  ['Kaiser Permanente', 6],
  ['Centene (Ambetter)', 3],
  ['Humana', 1],
  ['Oscar Health', 1],
  ['regional', 18],
]
export const MEDICARE_ADVANTAGE_SHARE = 0.54
export const MEDICARE_ADVANTAGE_SHARES: readonly (readonly [string, number])[] = [
  ['UnitedHealthcare', 29],
  ['Humana', 18],
  ['Aetna', 12],
  ['blues', 14],
  ['Kaiser Permanente', 5],
  ['WellCare', 4],
  ['Cigna Healthcare', 2],
  ['regional', 16],
]
export const MEDICAID_MANAGED_CARE_SHARE = 0.74
export const MEDICAID_MCO_SHARES: readonly (readonly [string, number])[] = [
  ['Centene Medicaid health plans', 20.5],
  ['Fidelis Care', 1.5],
  ['Anthem Blue Cross Blue Shield', 12],
  ['UnitedHealthcare', 11],
  ['Molina Healthcare', 8],
  ['Aetna', 5],
  ['regional', 42],
]
/** Share of 'other' coverage that is TRICARE/VA (the rest uninsured or self-pay). */
export const TRICARE_SHARE_OF_OTHER = 0.3

// ---------- snakebites ----------
/**
 * Snake species behind venomous bites by state, as ICD-10-CM T63.0 codes: T63.01 rattlesnake, T63.02 coral
 * snake, T63.06 other North American snake (copperhead, cottonmouth), T63.00 unspecified, T63.09 other snake
 * (captive exotics). Coral snakes live only from NC to TX and in Arizona; copperheads cause most bites in
 * the East (NC Poison Control: ~90 %); rattlesnakes nearly all bites in the West (poison-centre series).
 */
export type SnakeRegion = 'east' | 'southeast' | 'texas' | 'florida' | 'west' | 'arizona' | 'midwest' | 'northeast'
export const SNAKE_REGION: Readonly<Record<string, SnakeRegion>> = {
  NC: 'east',
  VA: 'east',
  TN: 'east',
  KY: 'east',
  WV: 'east',
  MD: 'east',
  DE: 'east',
  PA: 'east',
  OH: 'east',
  IN: 'east',
  DC: 'east',
  NJ: 'east',
  SC: 'southeast',
  GA: 'southeast',
  AL: 'southeast',
  MS: 'southeast',
  LA: 'southeast',
  AR: 'midwest',
  TX: 'texas',
  FL: 'florida',
  AZ: 'arizona',
  CA: 'west',
  NV: 'west',
  UT: 'west',
  NM: 'west',
  CO: 'west',
  OR: 'west',
  WA: 'west',
  ID: 'west',
  MT: 'west',
  WY: 'west',
  ND: 'west',
  SD: 'west',
  NE: 'midwest',
  KS: 'midwest',
  OK: 'midwest',
  MO: 'midwest',
  IA: 'midwest',
  IL: 'midwest',
  MN: 'midwest',
  WI: 'midwest',
  MI: 'midwest',
  NY: 'northeast',
  CT: 'northeast',
  MA: 'northeast',
  NH: 'northeast',
  VT: 'northeast',
  RI: 'northeast',
  ME: 'northeast',
  AK: 'northeast',
  HI: 'northeast',
}
export const SNAKE_CODES_BY_REGION: Readonly<Record<SnakeRegion, readonly (readonly [string, number])[]>> = {
  east: [
    ['T63.061A', 78],
    ['T63.011A', 8],
    ['T63.001A', 13],
    ['T63.091A', 1],
  ],
  southeast: [
    ['T63.061A', 50],
    ['T63.011A', 28],
    ['T63.021A', 3],
    ['T63.001A', 18],
    ['T63.091A', 1],
  ],
  florida: [
    ['T63.061A', 38],
    ['T63.011A', 36],
    ['T63.021A', 8],
    ['T63.001A', 17],
    ['T63.091A', 1],
  ],
  texas: [
    ['T63.011A', 50],
    ['T63.061A', 30],
    ['T63.021A', 3],
    ['T63.001A', 16],
    ['T63.091A', 1],
  ],
  arizona: [
    ['T63.011A', 86],
    ['T63.021A', 1],
    ['T63.001A', 12],
    ['T63.091A', 1],
  ],
  west: [
    ['T63.011A', 86],
    ['T63.001A', 13],
    ['T63.091A', 1],
  ],
  midwest: [
    ['T63.061A', 45],
    ['T63.011A', 38],
    ['T63.001A', 16],
    ['T63.091A', 1],
  ],
  northeast: [
    ['T63.011A', 45],
    ['T63.061A', 30],
    ['T63.001A', 20],
    ['T63.091A', 5],
  ],
}
/** States where coral snakes live (the T63.02 code may occur only there). */
export const CORAL_SNAKE_STATES: ReadonlySet<string> = new Set(
  Object.entries(SNAKE_REGION)
    .filter(([, r]) => SNAKE_CODES_BY_REGION[r].some(([c]) => c.startsWith('T63.02')))
    .map(([s]) => s),
)
