import { randomBytes } from 'node:crypto'
import {
  COUNTY_POPULATION,
  icd10StarterCodes,
  INSURERS,
  loadCountyGeometries,
  loadStateGeometries,
  loadZipRows,
  procedureCodes,
  SHOPPABLE_PROCEDURES,
  specialties,
  STATES,
  type CopyValue,
  type CountyGeoRow,
} from '@citrus/data-kit'
import type pg from 'pg'
import { bulkLoad, quoteIdent } from './bulk.js'
import type { Progress } from './progress.js'

/** EWKT of a GeoJSON MultiPolygon (the geometry type's text input). */
export function multiPolygonEwkt(geometry: CountyGeoRow['geometry']): string {
  const ring = (points: number[][]) => {
    const first = points[0]
    const last = points[points.length - 1]
    // the boundary file has a ring or two left open (where it was clipped): close it
    const closed = first && last && (first[0] !== last[0] || first[1] !== last[1]) ? [...points, first] : points
    return `(${closed.map(([x, y]) => `${x} ${y}`).join(',')})`
  }
  return `SRID=4326;MULTIPOLYGON(${geometry.coordinates.map((polygon) => `(${polygon.map(ring).join(',')})`).join(',')})`
}

/** A temporary staging table with the given column definitions, dropped at commit (unique name: the
 * embedded database multiplexes every connection onto one session, so temp names must not collide). */
export async function createStage(client: pg.ClientBase, prefix: string, columns: string): Promise<string> {
  const name = `stage_${prefix}_${randomBytes(4).toString('hex')}`
  await client.query(`CREATE TEMP TABLE ${quoteIdent(name)} (${columns}) ON COMMIT DROP`)
  return name
}

/**
 * Stage rows, then run the upsert SQL (`{stage}` is replaced by the stage table); one transaction, or with
 * `rowsPerTurn` one transaction per that many rows (a load beside a serving embedded database, whose single
 * session each statement holds: SeedOptions.shortTurns).
 */
async function stagedUpsert(
  client: pg.ClientBase,
  prefix: string,
  definition: string,
  columns: string[],
  rows: readonly (readonly CopyValue[])[],
  upsertSql: string,
  rowsPerTurn = Infinity,
): Promise<number> {
  let upserted = 0
  for (let from = 0; from < rows.length || from === 0; from += rowsPerTurn) {
    await client.query('BEGIN')
    try {
      const stage = await createStage(client, prefix, definition)
      await bulkLoad(client, stage, columns, rows.slice(from, from + rowsPerTurn))
      const result = await client.query(upsertSql.replaceAll('{stage}', quoteIdent(stage)))
      await client.query('COMMIT')
      upserted += result.rowCount ?? 0
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    }
  }
  return upserted
}

/** Rows per transaction of the large uploads (boundaries and points); unset: one transaction each. */
export interface ReferenceTurns {
  states?: number
  counties?: number
  zips?: number
}

export interface ReferenceCounts {
  states: number
  counties: number
  zips: number
  icd10_codes: number
  procedure_codes: number
  shoppable_procedures: number
  specialties: number
  insurers: number
}

/**
 * Reference data (real): states and counties with their polygons, ZIPs with centroids, the starter code sets,
 * specialties and insurers. Upserted, never truncated: rows from official imports are kept (starter rows do not
 * overwrite imported ones), so seeding after an import loses nothing.
 */
export async function loadReferenceData(client: pg.ClientBase, progress: Progress, turns: ReferenceTurns = {}): Promise<ReferenceCounts> {
  const step = (label: string, total: number) => progress.step(label, total)

  const stateGeo = new Map(loadStateGeometries().map((s) => [s.fips, s.geometry]))
  let s = step('states', STATES.length)
  const states = await stagedUpsert(
    client,
    'states',
    'fips text, abbr text, name text, region text, division text, population int, geom text',
    ['fips', 'abbr', 'name', 'region', 'division', 'population', 'geom'],
    STATES.map((st) => {
      const geometry = stateGeo.get(st.fips)
      return [st.fips, st.abbr, st.name, st.region, st.division, st.population_2023, geometry ? multiPolygonEwkt(geometry) : null]
    }),
    `INSERT INTO states (fips, abbr, name, region, division, population, geom)
     SELECT fips, abbr, name, region, division, population, geom::geometry FROM {stage}
     ON CONFLICT (fips) DO UPDATE SET abbr = EXCLUDED.abbr, name = EXCLUDED.name, region = EXCLUDED.region,
       division = EXCLUDED.division, population = COALESCE(states.population, EXCLUDED.population), geom = EXCLUDED.geom`,
    turns.states,
  )
  s.finish(states)

  const stateFips = new Set(STATES.map((st) => st.fips))
  const countyRows = loadCountyGeometries().filter((c) => stateFips.has(c.state_fips))
  s = step('counties', countyRows.length)
  const counties = await stagedUpsert(
    client,
    'counties',
    'fips text, state_fips text, name text, population int, geom text',
    ['fips', 'state_fips', 'name', 'population', 'geom'],
    // population: Census Vintage 2023 (data-kit COUNTY_POPULATION); a Census import keeps its own figures
    countyRows.map((c) => [c.fips, c.state_fips, c.name, COUNTY_POPULATION[c.fips] ?? null, multiPolygonEwkt(c.geometry)]),
    `INSERT INTO counties (fips, state_fips, name, population, geom, latitude, longitude)
     SELECT fips, state_fips, name, population, g, ST_Y(ST_PointOnSurface(g)), ST_X(ST_PointOnSurface(g))
     FROM (SELECT fips, state_fips, name, population, geom::geometry AS g FROM {stage}) x
     ON CONFLICT (fips) DO UPDATE SET state_fips = EXCLUDED.state_fips, name = EXCLUDED.name, geom = EXCLUDED.geom,
       population = COALESCE(counties.population, EXCLUDED.population),
       latitude = COALESCE(counties.latitude, EXCLUDED.latitude), longitude = COALESCE(counties.longitude, EXCLUDED.longitude)`,
    turns.counties,
  )
  s.finish(counties)

  const countyFips = new Set(countyRows.map((c) => c.fips))
  const zipRows = loadZipRows().filter((z) => stateFips.has(z.state_fips))
  s = step('zips', zipRows.length)
  const zips = await stagedUpsert(
    client,
    'zips',
    'zip text, city text, state_fips text, state text, county_fips text, county_name text, latitude float8, longitude float8, is_zcta boolean',
    ['zip', 'city', 'state_fips', 'state', 'county_fips', 'county_name', 'latitude', 'longitude', 'is_zcta'],
    // a county code the boundary file does not know (none today) would break the foreign key: keep the name only
    zipRows.map((z) => [z.zip, z.city, z.state_fips, z.state, z.county_fips && countyFips.has(z.county_fips) ? z.county_fips : null, z.county_name, z.lat, z.lng, z.is_zcta]),
    `INSERT INTO zips (zip, city, state_fips, state, county_fips, county_name, latitude, longitude, is_zcta)
     SELECT zip, city, state_fips, state, county_fips, county_name, latitude, longitude, is_zcta FROM {stage}
     ON CONFLICT (zip) DO UPDATE SET city = EXCLUDED.city, state_fips = EXCLUDED.state_fips, state = EXCLUDED.state,
       county_fips = EXCLUDED.county_fips, county_name = EXCLUDED.county_name, latitude = EXCLUDED.latitude,
       longitude = EXCLUDED.longitude, is_zcta = EXCLUDED.is_zcta`,
    turns.zips,
  )
  s.finish(zips)

  const icd = icd10StarterCodes()
  s = step('icd10_codes (starter)', icd.length)
  const icd10_codes = await stagedUpsert(
    client,
    'icd10',
    'code text, description text, long_description text, parent_code text, billable boolean',
    ['code', 'description', 'long_description', 'parent_code', 'billable'],
    icd.map((c) => [c.code, c.description, c.long_description, c.parent_code, c.billable]),
    `INSERT INTO icd10_codes (code, description, long_description, parent_code, billable, source)
     SELECT code, description, long_description, parent_code, billable, 'starter' FROM {stage}
     ON CONFLICT (code) DO UPDATE SET description = EXCLUDED.description, long_description = EXCLUDED.long_description,
       parent_code = EXCLUDED.parent_code, billable = EXCLUDED.billable, updated_at = now()
     WHERE icd10_codes.source = 'starter'`,
  )
  s.finish(icd10_codes)

  const procedures = procedureCodes()
  s = step('procedure_codes (starter)', procedures.length)
  const procedure_codes = await stagedUpsert(
    client,
    'procedures',
    'code text, code_system text, description text, category text, base_price numeric',
    ['code', 'code_system', 'description', 'category', 'base_price'],
    procedures.map((p) => [p.code, p.code_system, p.description, p.category, p.base_price]),
    // our plain-language names always win for the codes we author; an imported long description is kept
    `INSERT INTO procedure_codes (code, code_system, description, category, base_price, source)
     SELECT code, code_system, description, category, base_price, 'starter' FROM {stage}
     ON CONFLICT (code) DO UPDATE SET code_system = EXCLUDED.code_system, description = EXCLUDED.description,
       category = EXCLUDED.category, base_price = EXCLUDED.base_price, source = 'starter', updated_at = now()`,
  )
  s.finish(procedure_codes)

  s = step('shoppable_procedures', SHOPPABLE_PROCEDURES.length)
  const shoppable_procedures = await stagedUpsert(
    client,
    'shoppable',
    'name text, cpt_codes text[], description text',
    ['name', 'cpt_codes', 'description'],
    SHOPPABLE_PROCEDURES.map((p) => [p.name, [...p.cpt_codes], p.description]),
    `INSERT INTO shoppable_procedures (name, cpt_codes, description) SELECT name, cpt_codes, description FROM {stage}
     ON CONFLICT (name) DO UPDATE SET cpt_codes = EXCLUDED.cpt_codes, description = EXCLUDED.description`,
  )
  s.finish(shoppable_procedures)

  const taxonomies = specialties()
  s = step('specialties (starter)', taxonomies.length)
  const specialtyCount = await stagedUpsert(
    client,
    'specialties',
    'code text, grouping text, classification text, specialization text, display_name text, provider_kind text',
    ['code', 'grouping', 'classification', 'specialization', 'display_name', 'provider_kind'],
    taxonomies.map((t) => [t.code, t.grouping, t.classification, t.specialization, t.display_name, t.provider_kind]),
    `INSERT INTO specialties (code, grouping, classification, specialization, display_name, provider_kind, section, source)
     SELECT code, grouping, classification, specialization, display_name, provider_kind,
            CASE WHEN provider_kind = 'facility' THEN 'Non-Individual' ELSE 'Individual' END, 'starter' FROM {stage}
     ON CONFLICT (code) DO UPDATE SET provider_kind = EXCLUDED.provider_kind,
       grouping = CASE WHEN specialties.source = 'starter' THEN EXCLUDED.grouping ELSE specialties.grouping END,
       classification = CASE WHEN specialties.source = 'starter' THEN EXCLUDED.classification ELSE specialties.classification END,
       specialization = CASE WHEN specialties.source = 'starter' THEN EXCLUDED.specialization ELSE specialties.specialization END,
       display_name = CASE WHEN specialties.source = 'starter' THEN EXCLUDED.display_name ELSE specialties.display_name END,
       updated_at = now()`,
  )
  s.finish(specialtyCount)

  s = step('insurers', INSURERS.length)
  const insurers = await stagedUpsert(
    client,
    'insurers',
    'name text, parent text, kind text, states text[]',
    ['name', 'parent', 'kind', 'states'],
    INSURERS.map((i) => [i.name, i.parent, i.kind, [...(i.states ?? [])]]),
    `INSERT INTO insurers (name, parent, kind, states) SELECT name, parent, kind, states FROM {stage}
     ON CONFLICT (name) DO UPDATE SET parent = EXCLUDED.parent, kind = EXCLUDED.kind, states = EXCLUDED.states`,
  )
  s.finish(insurers)

  return { states, counties, zips, icd10_codes, procedure_codes, shoppable_procedures, specialties: specialtyCount, insurers }
}
