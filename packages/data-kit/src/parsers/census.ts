import { CsvHeader, readCsv } from '../io/csv.ts'
import type { TextSource } from '../io/text-source.ts'
import { reject, type ParseResult } from './result.ts'

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
export async function* parseCensusCountyPopulation(source: TextSource): AsyncGenerator<ParseResult<CensusPopulationRow>> {
  let header: CsvHeader | undefined
  let years: { year: number; index: number }[] = []
  for await (const item of readCsv(source)) {
    if ('error' in item) {
      yield reject(item.error.line, item.error.reason, item.error.text)
      continue
    }
    const { fields, line, text } = item.record
    if (!header) {
      header = new CsvHeader(fields)
      years = header.names.flatMap((name, index) => {
        const m = /^POPESTIMATE(\d{4})$/i.exec(name)
        return m ? [{ year: Number(m[1]), index }] : []
      })
      const missing = header.missing(['SUMLEV', 'STATE', 'COUNTY', 'STNAME', 'CTYNAME'])
      if (missing.length > 0 || years.length === 0) {
        yield reject(line, `not a Census county population file: missing column(s) ${[...missing, ...(years.length ? [] : ['POPESTIMATEyyyy'])].join(', ')}`, text)
        return
      }
      continue
    }
    const h = header
    const get = (name: string) => h.get(fields, name)
    const sumlev = get('SUMLEV').padStart(3, '0')
    const state = get('STATE')
    const county = get('COUNTY')
    if (sumlev !== '040' && sumlev !== '050') {
      yield reject(line, `SUMLEV must be 40 (state) or 50 (county), got '${get('SUMLEV')}'`, text)
      continue
    }
    if (!/^\d{1,2}$/.test(state) || !/^\d{1,3}$/.test(county)) {
      yield reject(line, `STATE/COUNTY must be numeric FIPS codes, got '${state}'/'${county}'`, text)
      continue
    }
    const estimates: Record<number, number> = {}
    let bad: string | undefined
    for (const { year, index } of years) {
      const raw = (fields[index] ?? '').trim()
      if (!/^\d+$/.test(raw)) bad ??= `POPESTIMATE${year} is not a count: '${raw}'`
      else estimates[year] = Number(raw)
    }
    if (bad) {
      yield reject(line, bad, text)
      continue
    }
    const latest = years.reduce((a, b) => (b.year > a.year ? b : a))
    const stateFips = state.padStart(2, '0')
    yield {
      ok: {
        level: sumlev === '040' ? 'state' : 'county',
        state_fips: stateFips,
        county_fips: sumlev === '050' ? `${stateFips}${county.padStart(3, '0')}` : null,
        state_name: get('STNAME'),
        name: get('CTYNAME'),
        estimates,
        population: estimates[latest.year] ?? 0,
        year: latest.year,
      },
      line,
    }
  }
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
export async function* parseGazetteerCounties(source: TextSource): AsyncGenerator<ParseResult<GazetteerCounty>> {
  let header: CsvHeader | undefined
  for await (const item of readCsv(source, { delimiter: '\t' })) {
    if ('error' in item) {
      yield reject(item.error.line, item.error.reason, item.error.text)
      continue
    }
    const { fields, line, text } = item.record
    if (!header) {
      header = new CsvHeader(fields)
      const missing = header.missing(['USPS', 'GEOID', 'NAME', 'ALAND_SQMI', 'AWATER_SQMI', 'INTPTLAT', 'INTPTLONG'])
      if (missing.length > 0) {
        yield reject(line, `not a Gazetteer counties file: missing column(s) ${missing.join(', ')}`, text)
        return
      }
      continue
    }
    const h = header
    const get = (name: string) => h.get(fields, name)
    const geoid = get('GEOID').padStart(5, '0')
    const lat = Number(get('INTPTLAT'))
    const lng = Number(get('INTPTLONG'))
    if (!/^\d{5}$/.test(geoid)) yield reject(line, `GEOID must be a 5-digit county FIPS, got '${get('GEOID')}'`, text)
    else if (!Number.isFinite(lat) || !Number.isFinite(lng) || get('INTPTLAT') === '' || Math.abs(lat) > 90 || Math.abs(lng) > 180) yield reject(line, 'invalid internal point coordinates', text)
    else yield { ok: { state: get('USPS'), county_fips: geoid, name: get('NAME'), land_area_sq_mi: Number(get('ALAND_SQMI')), water_area_sq_mi: Number(get('AWATER_SQMI')), latitude: lat, longitude: lng }, line }
  }
}
