/** Dataset scales as data: how many rows of each entity a run generates. */
export interface Scale {
  name: 'ci' | 'demo' | 'full'
  providers: number
  health_systems: number
  /** Facilities of each type are FACILITY_MIX_FULL × facility_fraction. */
  facility_fraction: number
  patients: number
  /** Claims cover this many years back from the reference date. */
  claim_years: number
  /** Snakebite cases: SNAKEBITES_PER_YEAR × snakebite_fraction × snakebite_years. */
  snakebite_fraction: number
  snakebite_years: number
  /** Procedures priced per facility in facility price lists. */
  priced_procedures_per_facility: number
}

export const SCALES: Readonly<Record<Scale['name'], Scale>> = {
  ci: {
    name: 'ci',
    providers: 3_000,
    health_systems: 12,
    facility_fraction: 0.012,
    patients: 3_000,
    claim_years: 1,
    snakebite_fraction: 0.03,
    snakebite_years: 5,
    priced_procedures_per_facility: 12,
  },
  demo: {
    name: 'demo',
    providers: 60_000,
    health_systems: 130,
    facility_fraction: 0.1,
    patients: 60_000,
    claim_years: 2,
    snakebite_fraction: 0.25,
    snakebite_years: 5,
    priced_procedures_per_facility: 20,
  },
  full: {
    name: 'full',
    providers: 6_000_000,
    health_systems: 650,
    facility_fraction: 1,
    patients: 2_000_000,
    claim_years: 2,
    snakebite_fraction: 1,
    snakebite_years: 5,
    priced_procedures_per_facility: 60,
  },
}

/** Claims and events end on this date, so a seed gives the same data whatever day it runs. */
export const REFERENCE_DATE = '2025-12-31'
