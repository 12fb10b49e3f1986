// Real US health insurers and public programmes (a fact list; names are trademarks of their owners).
// weight: an approximate relative share of commercially insured members used by the generator to pick
// plans (an assumption documented in seed/CALIBRATION.md); states: the footprint of a regional plan.
export type InsurerKind = 'commercial' | 'blues' | 'medicare' | 'medicaid' | 'military'

export interface InsurerSeed {
  name: string
  parent: string
  kind: InsurerKind
  weight: number
  /** USPS codes; undefined for a national plan. */
  states?: readonly string[]
}

export const INSURERS: readonly InsurerSeed[] = [
  { name: 'UnitedHealthcare', parent: 'UnitedHealth Group', kind: 'commercial', weight: 14 },
  { name: 'Aetna', parent: 'CVS Health', kind: 'commercial', weight: 8 },
  { name: 'Cigna Healthcare', parent: 'The Cigna Group', kind: 'commercial', weight: 6 },
  { name: 'Humana', parent: 'Humana Inc.', kind: 'commercial', weight: 3 },
  { name: 'Anthem Blue Cross Blue Shield', parent: 'Elevance Health', kind: 'blues', weight: 9, states: ['CA', 'CO', 'CT', 'GA', 'IN', 'KY', 'ME', 'MO', 'NV', 'NH', 'NY', 'OH', 'VA', 'WI'] },
  { name: 'Blue Cross and Blue Shield of Texas', parent: 'Health Care Service Corporation', kind: 'blues', weight: 4, states: ['TX'] },
  { name: 'Blue Cross and Blue Shield of Illinois', parent: 'Health Care Service Corporation', kind: 'blues', weight: 3, states: ['IL'] },
  { name: 'Blue Cross and Blue Shield of Oklahoma', parent: 'Health Care Service Corporation', kind: 'blues', weight: 1, states: ['OK'] },
  { name: 'Blue Cross and Blue Shield of New Mexico', parent: 'Health Care Service Corporation', kind: 'blues', weight: 0.5, states: ['NM'] },
  { name: 'Blue Cross and Blue Shield of Montana', parent: 'Health Care Service Corporation', kind: 'blues', weight: 0.3, states: ['MT'] },
  { name: 'Florida Blue', parent: 'GuideWell', kind: 'blues', weight: 3, states: ['FL'] },
  { name: 'Blue Shield of California', parent: 'Blue Shield of California', kind: 'blues', weight: 2.5, states: ['CA'] },
  { name: 'Highmark Blue Cross Blue Shield', parent: 'Highmark Health', kind: 'blues', weight: 2.5, states: ['PA', 'DE', 'WV', 'NY'] },
  { name: 'Independence Blue Cross', parent: 'Independence Health Group', kind: 'blues', weight: 1.5, states: ['PA', 'NJ'] },
  { name: 'Horizon Blue Cross Blue Shield of New Jersey', parent: 'Horizon Healthcare Services', kind: 'blues', weight: 2, states: ['NJ'] },
  { name: 'Blue Cross Blue Shield of Michigan', parent: 'Blue Cross Blue Shield of Michigan', kind: 'blues', weight: 2.5, states: ['MI'] },
  { name: 'Blue Cross and Blue Shield of North Carolina', parent: 'Blue Cross NC', kind: 'blues', weight: 2, states: ['NC'] },
  { name: 'BlueCross BlueShield of Tennessee', parent: 'BlueCross BlueShield of Tennessee', kind: 'blues', weight: 1.5, states: ['TN'] },
  { name: 'Blue Cross and Blue Shield of Alabama', parent: 'Blue Cross and Blue Shield of Alabama', kind: 'blues', weight: 1.5, states: ['AL'] },
  { name: 'Blue Cross and Blue Shield of Arizona', parent: 'Blue Cross Blue Shield of Arizona', kind: 'blues', weight: 1, states: ['AZ'] },
  { name: 'Blue Cross and Blue Shield of Louisiana', parent: 'Louisiana Health Service & Indemnity Co.', kind: 'blues', weight: 1, states: ['LA'] },
  { name: 'Blue Cross and Blue Shield of Georgia', parent: 'Elevance Health', kind: 'blues', weight: 0.5, states: ['GA'] },
  { name: 'Arkansas Blue Cross and Blue Shield', parent: 'Arkansas Blue Cross and Blue Shield', kind: 'blues', weight: 0.8, states: ['AR'] },
  { name: 'BlueCross BlueShield of South Carolina', parent: 'BlueCross BlueShield of South Carolina', kind: 'blues', weight: 1, states: ['SC'] },
  { name: 'Blue Cross & Blue Shield of Mississippi', parent: 'Blue Cross & Blue Shield of Mississippi', kind: 'blues', weight: 0.7, states: ['MS'] },
  { name: 'Blue Cross Blue Shield of Massachusetts', parent: 'Blue Cross Blue Shield of Massachusetts', kind: 'blues', weight: 1.5, states: ['MA'] },
  { name: 'CareFirst BlueCross BlueShield', parent: 'CareFirst', kind: 'blues', weight: 1.5, states: ['MD', 'DC', 'VA'] },
  { name: 'Regence BlueShield', parent: 'Cambia Health Solutions', kind: 'blues', weight: 1, states: ['WA', 'OR', 'ID', 'UT'] },
  { name: 'Premera Blue Cross', parent: 'Premera', kind: 'blues', weight: 1, states: ['WA', 'AK'] },
  { name: 'Wellmark Blue Cross and Blue Shield', parent: 'Wellmark', kind: 'blues', weight: 1, states: ['IA', 'SD'] },
  { name: 'Blue Cross and Blue Shield of Minnesota', parent: 'Blue Cross and Blue Shield of Minnesota', kind: 'blues', weight: 1, states: ['MN'] },
  { name: 'Blue Cross and Blue Shield of Kansas City', parent: 'Blue KC', kind: 'blues', weight: 0.5, states: ['MO', 'KS'] },
  { name: 'Excellus BlueCross BlueShield', parent: 'Lifetime Healthcare Companies', kind: 'blues', weight: 0.8, states: ['NY'] },
  { name: 'Blue Cross and Blue Shield of Nebraska', parent: 'Blue Cross and Blue Shield of Nebraska', kind: 'blues', weight: 0.5, states: ['NE'] },
  { name: 'Blue Cross Blue Shield of North Dakota', parent: 'Noridian Mutual Insurance Company', kind: 'blues', weight: 0.3, states: ['ND'] },
  { name: 'Blue Cross & Blue Shield of Rhode Island', parent: 'Blue Cross & Blue Shield of Rhode Island', kind: 'blues', weight: 0.4, states: ['RI'] },
  { name: 'Blue Cross and Blue Shield of Vermont', parent: 'Blue Cross and Blue Shield of Vermont', kind: 'blues', weight: 0.2, states: ['VT'] },
  { name: 'Blue Cross Blue Shield of Wyoming', parent: 'Blue Cross Blue Shield of Wyoming', kind: 'blues', weight: 0.1, states: ['WY'] },
  { name: 'Hawaii Medical Service Association (HMSA)', parent: 'HMSA', kind: 'blues', weight: 0.5, states: ['HI'] },
  { name: 'Kaiser Permanente', parent: 'Kaiser Foundation Health Plan', kind: 'commercial', weight: 5, states: ['CA', 'CO', 'GA', 'HI', 'MD', 'VA', 'DC', 'OR', 'WA'] },
  { name: 'Centene (Ambetter)', parent: 'Centene Corporation', kind: 'commercial', weight: 2 },
  { name: 'Centene Medicaid health plans', parent: 'Centene Corporation', kind: 'medicaid', weight: 3 },
  { name: 'Molina Healthcare', parent: 'Molina Healthcare', kind: 'medicaid', weight: 2 },
  { name: 'Oscar Health', parent: 'Oscar Health', kind: 'commercial', weight: 0.8 },
  { name: 'Health Net', parent: 'Centene Corporation', kind: 'commercial', weight: 0.8, states: ['CA', 'AZ', 'OR'] },
  { name: 'EmblemHealth', parent: 'EmblemHealth', kind: 'commercial', weight: 0.8, states: ['NY'] },
  { name: 'Fidelis Care', parent: 'Centene Corporation', kind: 'medicaid', weight: 0.8, states: ['NY'] },
  { name: 'UPMC Health Plan', parent: 'UPMC', kind: 'commercial', weight: 0.8, states: ['PA'] },
  { name: 'Geisinger Health Plan', parent: 'Geisinger', kind: 'commercial', weight: 0.4, states: ['PA'] },
  { name: 'Medica', parent: 'Medica', kind: 'commercial', weight: 0.7, states: ['MN', 'NE', 'WI', 'IA', 'KS', 'MO'] },
  { name: 'HealthPartners', parent: 'HealthPartners', kind: 'commercial', weight: 0.6, states: ['MN', 'WI'] },
  { name: 'Priority Health', parent: 'Corewell Health', kind: 'commercial', weight: 0.5, states: ['MI'] },
  { name: 'Point32Health (Harvard Pilgrim and Tufts Health Plan)', parent: 'Point32Health', kind: 'commercial', weight: 0.8, states: ['MA', 'NH', 'ME', 'CT', 'RI'] },
  { name: 'SelectHealth', parent: 'Intermountain Health', kind: 'commercial', weight: 0.6, states: ['UT', 'ID', 'NV'] },
  { name: 'Presbyterian Health Plan', parent: 'Presbyterian Healthcare Services', kind: 'commercial', weight: 0.3, states: ['NM'] },
  { name: 'CareSource', parent: 'CareSource', kind: 'medicaid', weight: 0.8, states: ['OH', 'GA', 'IN', 'KY', 'WV', 'AR'] },
  { name: 'AmeriHealth Caritas', parent: 'AmeriHealth Caritas', kind: 'medicaid', weight: 0.6, states: ['PA', 'LA', 'NC', 'SC', 'DC', 'DE', 'NH', 'FL'] },
  { name: 'WellCare', parent: 'Centene Corporation', kind: 'medicare', weight: 0.8 },
  { name: 'Devoted Health', parent: 'Devoted Health', kind: 'medicare', weight: 0.2, states: ['FL', 'TX', 'AZ', 'OH', 'IL', 'NC', 'SC', 'TN', 'AL', 'GA', 'CO'] },
  { name: 'SCAN Health Plan', parent: 'SCAN Group', kind: 'medicare', weight: 0.2, states: ['CA', 'AZ', 'NV', 'TX'] },
  { name: 'Medicare', parent: 'Centers for Medicare & Medicaid Services', kind: 'medicare', weight: 0 },
  { name: 'Medicaid', parent: 'State Medicaid agencies', kind: 'medicaid', weight: 0 },
  { name: 'TRICARE', parent: 'Defense Health Agency', kind: 'military', weight: 1 },
]
