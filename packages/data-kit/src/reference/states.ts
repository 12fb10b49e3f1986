import { STATES_2023, TERRITORIES } from './data/states.ts'

export interface StateInfo {
  fips: string
  abbr: string
  name: string
  region: string | null
  division: string | null
  /** July 1, 2023 estimate; null for territories (not in the Census county estimates). */
  population_2023: number | null
}

export const STATES: readonly StateInfo[] = [
  ...STATES_2023.map(([fips, abbr, name, region, division, population]) => ({
    fips,
    abbr,
    name,
    region,
    division,
    population_2023: population,
  })),
  ...TERRITORIES.map(([fips, abbr, name]) => ({ fips, abbr, name, region: null, division: null, population_2023: null })),
]

export const STATE_BY_ABBR: ReadonlyMap<string, StateInfo> = new Map(STATES.map((s) => [s.abbr, s]))
export const STATE_BY_FIPS: ReadonlyMap<string, StateInfo> = new Map(STATES.map((s) => [s.fips, s]))
