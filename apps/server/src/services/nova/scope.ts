import { NOVA_MESSAGES, type NovaGranularity, type NovaRegionLevel, type TerritoryName } from '@citrus/contracts'
import { badRequest } from '../../lib/errors.js'
import type { Scope } from './queries.js'

/** The region a Nova call asks for (its geo_filter_input). */
export interface GeoInput {
  filter_value: { region_level: NovaRegionLevel; search_within_region?: string | undefined; granularity?: NovaGranularity | undefined }
}

/** What a region is resolved against: the states and the territories of the data version. */
export interface ScopeLookup {
  /** every state by upper-case abbr (`a:`) and lower-case name (`n:`) */
  stateLookup: ReadonlyMap<string, { abbr: string; name: string }>
  territories: readonly TerritoryName[]
}

/**
 * The scope of a region: a state by abbreviation or name, a sales territory by name or id (every use case reads the
 * serb_crofab territories: lower(name) = lower(v) OR id::text = v, the lowest id), else the country. One function for
 * the engine's data and for a call's rows read from the database (engines/nova/data.ts), so both resolve alike.
 */
export function resolveScope(lookup: ScopeLookup, geo: GeoInput): Scope {
  const { region_level: level, search_within_region: value = '' } = geo.filter_value
  if (level === 'STATE') {
    const state = lookup.stateLookup.get(`a:${value.toUpperCase()}`) ?? lookup.stateLookup.get(`n:${value.toLowerCase()}`)
    if (!state) throw badRequest(NOVA_MESSAGES.unknownState(value))
    return { level, state: state.abbr, stateName: state.name }
  }
  if (level === 'SALES_TERRITORY') {
    const lower = value.toLowerCase()
    const territory = lookup.territories
      .filter((t) => t.name.toLowerCase() === lower || String(t.id) === value)
      .reduce<TerritoryName | null>((best, t) => (best === null || t.id < best.id ? t : best), null)
    if (!territory) throw badRequest(NOVA_MESSAGES.unknownTerritory(value))
    return { level, territory }
  }
  return { level: 'COUNTRY' }
}
