/**
 * Distances between points as PostGIS measures them on `geography` (docs/decisions/0050): ST_Distance on the
 * WGS 84 spheroid, computed here with Vincenty's inverse formula (agrees with PostGIS's geodesic to well under
 * a millimetre at the distances of a search radius), and a cheap great-circle measure on the mean sphere
 * (PostGIS's own sphere, radius (2a + b) / 3) that bounds it, used to skip the spheroid where the answer is
 * already certain.
 */

const A = 6_378_137
const F = 1 / 298.257223563
const B = A * (1 - F)
const RAD = Math.PI / 180
/** PostGIS's sphere for geography: the WGS 84 mean radius */
export const SPHERE_RADIUS_M = (2 * A + B) / 3
/**
 * The spheroid distance and the mean-sphere distance of two points differ by less than 0.6 % (meridians at the
 * equator and at the poles); this margin covers it with room to spare.
 */
export const SPHERE_MARGIN = 0.01

/** Geodesic distance in metres on the WGS 84 spheroid (Vincenty), as PostGIS's ST_Distance(geography, geography). */
export function spheroidDistance(lat1: number, lon1: number, lat2: number, lon2: number): number {
  if (lat1 === lat2 && lon1 === lon2) return 0
  const U1 = reducedLatitude(lat1)
  const U2 = reducedLatitude(lat2)
  return spheroidDistanceReduced(lat1, lon1, Math.sin(U1), Math.cos(U1), lat2, lon2, Math.sin(U2), Math.cos(U2))
}

/** The reduced latitude (radians) of a latitude in degrees: its sine and cosine can be kept with a point. */
export function reducedLatitude(lat: number): number {
  return Math.atan((1 - F) * Math.tan(lat * RAD))
}

/**
 * spheroidDistance with the points' reduced latitudes given by their sine and cosine (kept per point by the
 * candidate index): the same arithmetic, so the same result to the last bit, without four trigonometric calls.
 */
export function spheroidDistanceReduced(
  lat1: number,
  lon1: number,
  sinU1: number,
  cosU1: number,
  lat2: number,
  lon2: number,
  sinU2: number,
  cosU2: number,
): number {
  if (lat1 === lat2 && lon1 === lon2) return 0
  const L = (lon2 - lon1) * RAD
  let lambda = L
  let sinSigma = 0
  let cosSigma = 0
  let sigma = 0
  let cos2Alpha = 0
  let cos2SigmaM = 0
  for (let iteration = 0; iteration < 200; iteration++) {
    const sinLambda = Math.sin(lambda)
    const cosLambda = Math.cos(lambda)
    const x = cosU2 * sinLambda
    const y = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
    sinSigma = Math.sqrt(x * x + y * y)
    if (sinSigma === 0) return 0
    cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
    sigma = Math.atan2(sinSigma, cosSigma)
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma
    cos2Alpha = 1 - sinAlpha * sinAlpha
    cos2SigmaM = cos2Alpha !== 0 ? cosSigma - (2 * sinU1 * sinU2) / cos2Alpha : 0
    const C = (F / 16) * cos2Alpha * (4 + F * (4 - 3 * cos2Alpha))
    const previous = lambda
    lambda = L + (1 - C) * F * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
    if (Math.abs(lambda - previous) <= 1e-13) break
  }
  const uSq = (cos2Alpha * (A * A - B * B)) / (B * B)
  const bigA = 1 + (uSq / 16384) * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
  const bigB = (uSq / 1024) * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
  const deltaSigma =
    bigB *
    sinSigma *
    (cos2SigmaM +
      (bigB / 4) *
        (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) -
          (bigB / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
  return B * bigA * (sigma - deltaSigma)
}

/**
 * The haversine term of two points given in radians with their latitudes' cosines: a monotonic measure of the
 * great-circle distance (distance = 2 R asin √h), so comparisons need no inverse trigonometry.
 */
export function haversineTerm(lat1: number, lon1: number, cosLat1: number, lat2: number, lon2: number, cosLat2: number): number {
  const dLat = Math.sin((lat2 - lat1) / 2)
  const dLon = Math.sin((lon2 - lon1) / 2)
  return dLat * dLat + cosLat1 * cosLat2 * dLon * dLon
}

/** The haversine term of a great-circle distance in metres on the mean sphere. */
export function haversineTermOf(distanceM: number): number {
  const half = Math.min(Math.PI / 2, distanceM / (2 * SPHERE_RADIUS_M))
  const s = Math.sin(half)
  return s * s
}

export const toRadians = (degrees: number) => degrees * RAD
