import type { TextSource } from '../io/text-source.ts'
import { parseCsvTable } from './csv-table.ts'
import type { ParseResult } from './result.ts'

export interface CensusPopulationRow {
  level: 'state' | 'county'
  /** 2-digit state FIPS, zero-padded. */
  state_fips: string
  /** 5-digit county FIPS (state + county), zero-padded; null for state rows. */
  county_fips: string | null
  state_name: string
  name: string
  /** POPESTIMATEyyyy columns by year. */
  estimates: Record<number, number>
  /** The latest estimate in the file, and its year. */
  population: number
  year: number
}

/**
 * Census Population Estimates county file (co-estYYYY-alldata.csv). SUMLEV 040 rows are states, 050 counties.
 * Copies re-saved by spreadsheets lose the FIPS leading zeros (STATE=1): every code is zero-padded.
 */
export function parseCensusCountyPopulation(source: TextSource): AsyncGenerator<ParseResult<CensusPopulationRow>> {
  return parseCsvTable(source, {
    file: 'a Census county population file',
    required: ['SUMLEV', 'STATE', 'COUNTY', 'STNAME', 'CTYNAME'],
    header: (header) => {
      const years = header.names.flatMap((name, index) => {
        const m = /^POPESTIMATE(\d{4})$/i.exec(name)
        return m ? [{ year: Number(m[1]), index }] : []
      })
      return { context: years, missing: years.length ? [] : ['POPESTIMATEyyyy'] }
    },
    row: ({ get, fields }, years) => {
      const sumlev = get('SUMLEV').padStart(3, '0')
      const state = get('STATE')
      const county = get('COUNTY')
      if (sumlev !== '040' && sumlev !== '050') return `SUMLEV must be 40 (state) or 50 (county), got '${get('SUMLEV')}'`
      if (!/^\d{1,2}$/.test(state) || !/^\d{1,3}$/.test(county))
        return `STATE/COUNTY must be numeric FIPS codes, got '${state}'/'${county}'`
      const estimates: Record<number, number> = {}
      let bad: string | undefined
      for (const { year, index } of years) {
        const raw = (fields[index] ?? '').trim()
        if (!/^\d+$/.test(raw)) bad ??= `POPESTIMATE${year} is not a count: '${raw}'`
        else estimates[year] = Number(raw)
      }
      if (bad) return bad
      const latest = years.reduce((a, b) => (b.year > a.year ? b : a))
      const stateFips = state.padStart(2, '0')
      return {
        level: sumlev === '040' ? 'state' : 'county',
        state_fips: stateFips,
        county_fips: sumlev === '050' ? `${stateFips}${county.padStart(3, '0')}` : null,
        state_name: get('STNAME'),
        name: get('CTYNAME'),
        estimates,
        population: estimates[latest.year] ?? 0,
        year: latest.year,
      }
    },
  })
}

export interface GazetteerCounty {
  state: string
  county_fips: string
  name: string
  land_area_sq_mi: number
  water_area_sq_mi: number
  latitude: number
  longitude: number
}

/** Census Gazetteer county file (YYYY_Gaz_counties_national.txt, tab-delimited): county centroids and areas. */
export function parseGazetteerCounties(source: TextSource): AsyncGenerator<ParseResult<GazetteerCounty>> {
  return parseCsvTable(source, {
    file: 'a Gazetteer counties file',
    required: ['USPS', 'GEOID', 'NAME', 'ALAND_SQMI', 'AWATER_SQMI', 'INTPTLAT', 'INTPTLONG'],
    csv: { delimiter: '\t' },
    row: ({ get }) => {
      const geoid = get('GEOID').padStart(5, '0')
      const lat = Number(get('INTPTLAT'))
      const lng = Number(get('INTPTLONG'))
      if (!/^\d{5}$/.test(geoid)) return `GEOID must be a 5-digit county FIPS, got '${get('GEOID')}'`
      if (!Number.isFinite(lat) || !Number.isFinite(lng) || get('INTPTLAT') === '' || Math.abs(lat) > 90 || Math.abs(lng) > 180)
        return 'invalid internal point coordinates'
      return {
        state: get('USPS'),
        county_fips: geoid,
        name: get('NAME'),
        land_area_sq_mi: Number(get('ALAND_SQMI')),
        water_area_sq_mi: Number(get('AWATER_SQMI')),
        latitude: lat,
        longitude: lng,
      }
    },
  })
}
