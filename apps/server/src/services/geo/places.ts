import { GEO_CITY_ZOOM_STEPS, GEO_PLACE_CITY_LIMIT, GEO_STATE_LABEL_MIN_ZOOM } from '@citrus/contracts'
import type pg from 'pg'

/** Decimal digits of a label point (about 100 m: plenty for a label). */
const COORDINATE_DIGITS = 3

/** cityMinZoom (contracts) as SQL over `rank`, so the database builds the whole body. */
function cityMinZoomSql(rank: string): string {
  const steps = GEO_CITY_ZOOM_STEPS.map(([maxRank, zoom]) => `WHEN ${rank} <= ${maxRank} THEN ${zoom}`).join(' ')
  return `CASE ${steps} ELSE ${GEO_CITY_ZOOM_STEPS[GEO_CITY_ZOOM_STEPS.length - 1]![1] + 1} END`
}

/**
 * The label points of the offline basemap as one GeoJSON text (contract: placeCollectionSchema), built by
 * the database from the reference tables:
 *  - states: the centre of the state's largest polygon (the point on its surface when the centre falls
 *    outside, as for a crescent), so Michigan is labelled on its lower peninsula and Hawaii on the Big Island;
 *  - cities: ZIP centroids grouped by city and state. The ZIP table has no population, so each ZCTA takes an
 *    equal share of its county's Census population and a city sums its ZCTAs' shares; the city's point is
 *    the mean of its ZCTA centroids. The largest GEO_PLACE_CITY_LIMIT are served, each with the zoom it is
 *    labelled from (the top N per zoom, GEO_CITY_ZOOM_STEPS).
 */
export async function placeCollectionJson(pool: pg.Pool): Promise<string> {
  const result = await pool.query<{ json: string }>(
    `WITH state_points AS (
       SELECT s.fips, s.abbr, s.name, s.population,
              CASE WHEN ST_Contains(big.geom, ST_Centroid(big.geom)) THEN ST_Centroid(big.geom) ELSE ST_PointOnSurface(big.geom) END AS point
       FROM states s
       CROSS JOIN LATERAL (SELECT d.geom FROM ST_Dump(s.geom) d ORDER BY ST_Area(d.geom) DESC LIMIT 1) big
       WHERE s.geom IS NOT NULL
     ),
     ranked_states AS (
       SELECT *, row_number() OVER (ORDER BY population DESC NULLS LAST, fips) AS rank FROM state_points
     ),
     county_zctas AS (
       SELECT county_fips, count(*) AS zctas FROM zips WHERE is_zcta AND county_fips IS NOT NULL GROUP BY county_fips
     ),
     cities AS (
       SELECT z.state, z.city AS name, avg(z.latitude) AS lat, avg(z.longitude) AS lng,
              round(sum(c.population::float8 / cz.zctas))::int AS population
       FROM zips z
       JOIN counties c ON c.fips = z.county_fips
       JOIN county_zctas cz ON cz.county_fips = z.county_fips
       WHERE z.is_zcta AND c.population IS NOT NULL
       GROUP BY z.state, z.city
     ),
     ranked_cities AS (
       SELECT *, row_number() OVER (ORDER BY population DESC, state, name) AS rank FROM cities
     ),
     places AS (
       SELECT 'state' AS kind, name, abbr AS state, population, rank,
              ${GEO_STATE_LABEL_MIN_ZOOM}::float8 AS min_zoom, ST_X(point) AS lng, ST_Y(point) AS lat
       FROM ranked_states
       UNION ALL
       SELECT 'city', name, state, population, rank,
              (${cityMinZoomSql('rank')})::float8, lng, lat
       FROM ranked_cities WHERE rank <= ${GEO_PLACE_CITY_LIMIT}
     )
     SELECT json_build_object(
       'type', 'FeatureCollection',
       'features', coalesce(json_agg(json_build_object(
         'type', 'Feature',
         'properties', json_build_object('kind', p.kind, 'name', p.name, 'state', p.state, 'population', p.population,
           'rank', p.rank, 'min_zoom', p.min_zoom),
         'geometry', json_build_object('type', 'Point', 'coordinates',
           json_build_array(round(p.lng::numeric, ${COORDINATE_DIGITS}), round(p.lat::numeric, ${COORDINATE_DIGITS})))
       ) ORDER BY p.kind DESC, p.rank), '[]'::json)
     )::text AS json
     FROM places p`,
  )
  // re-serialised without the blanks PostgreSQL puts around ':' and ',' (a third of the body)
  return JSON.stringify(JSON.parse(result.rows[0]?.json ?? '{"type":"FeatureCollection","features":[]}'))
}
