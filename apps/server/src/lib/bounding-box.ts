/**
 * A latitude/longitude box around a radius search: it lets the planner use a (…, latitude, longitude) b-tree index
 * (providers' (primary_taxonomy_code, latitude, longitude), the points views') instead of the geography index alone.
 * The box only narrows what is read; a distance test still decides (ST_DWithin or ST_Distance in the statement, or
 * findCandidates on the rows read), so the rows found are exactly the same.
 */

/**
 * Kilometres per degree of latitude, rounded down (the shortest, at the equator, is 110.57 km; a degree of longitude
 * is at least 111.32 km × cos(latitude)): a radius over it in degrees bounds a latitude/longitude box safely.
 */
export const KM_PER_DEGREE = 110

/** [south, north, west, east] in degrees */
export type Box = readonly [number, number, number, number]

/** Every latitude and longitude: the box of a search that a box cannot bound. */
export const WHOLE_EARTH: Box = [-90, 90, -180, 180]

/**
 * A box that holds every point within `radiusM` of (lat, lon) on the spheroid, or null when it would reach a pole or
 * the antimeridian (then only ST_DWithin bounds the search).
 */
export function boundingBox(lat: number, lon: number, radiusM: number): Box | null {
  const dLat = radiusM / 1000 / KM_PER_DEGREE
  const farthest = Math.abs(lat) + dLat
  if (farthest >= 85) return null
  const dLon = dLat / Math.cos((farthest * Math.PI) / 180)
  if (lon - dLon <= -180 || lon + dLon >= 180) return null
  return [lat - dLat, lat + dLat, lon - dLon, lon + dLon]
}
