import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'
import { INPUT_MESSAGES, INT32_MAX } from './validation.js'

/**
 * The basemap of every map in the product (Care Connect, Atlas, Nova): state and county outlines from the
 * platform's own boundaries (Census cartographic boundaries in the tables states and counties), so a map
 * needs no internet. Boundaries are public reference data, not customer data: any signed-in role and any
 * valid shareable link may read them, and they are not metered (docs/decisions/0020-map-basemap.md).
 */

export const GEO_LEVELS = ['state', 'county'] as const
export type GeoLevel = (typeof GEO_LEVELS)[number]

/** Vector-tile zoom range the server answers (the client over-zooms past the maximum). */
export const GEO_TILE_MIN_ZOOM = 0
export const GEO_TILE_MAX_ZOOM = 12
/** Tile layers of the basemap and the zoom from which the county layer is included. */
export const GEO_TILE_LAYERS = { states: 'states', counties: 'counties' } as const
export const GEO_COUNTY_MIN_ZOOM = 3
/** Tile extent (MVT units per tile side) and buffer shared by both encoders. */
export const GEO_TILE_EXTENT = 4096
export const GEO_TILE_BUFFER = 64
/** MIME type of a Mapbox Vector Tile. */
export const MVT_CONTENT_TYPE = 'application/vnd.mapbox-vector-tile'

export const GEO_MESSAGES = {
  invalidLevel: "level must be 'state' or 'county'",
  invalidState: 'state must be a 2-letter state abbreviation or a 2-digit state FIPS code',
  tileOutOfRange: (z: number, x: number, y: number) => `Tile ${z}/${x}/${y} is outside the tile pyramid`,
} as const

const positionSchema = z.array(z.number()).min(2)
const multiPolygonSchema = z.object({
  type: z.literal('MultiPolygon'),
  coordinates: z.array(z.array(z.array(positionSchema))),
})
const polygonSchema = z.object({ type: z.literal('Polygon'), coordinates: z.array(z.array(positionSchema)) })

export const boundaryPropertiesSchema = z.object({
  fips: z.string().describe('2-digit state or 5-digit county FIPS code'),
  name: z.string(),
  level: z.enum(GEO_LEVELS),
  state_fips: z.string().describe('the state of a county; the state itself for a state'),
  abbr: z.string().nullable().describe('state abbreviation (states and counties)'),
  population: z.number().int().nullable().describe('Census population of the state or county, when loaded'),
})
export type BoundaryProperties = z.infer<typeof boundaryPropertiesSchema>

export const boundaryFeatureSchema = z.object({
  type: z.literal('Feature'),
  id: z.string(),
  properties: boundaryPropertiesSchema,
  geometry: z.union([multiPolygonSchema, polygonSchema]),
})

export const boundaryCollectionSchema = z
  .object({
    type: z.literal('FeatureCollection'),
    features: z.array(boundaryFeatureSchema),
    level: z.enum(GEO_LEVELS),
    /** simplification tolerance in degrees the geometry was built with */
    tolerance: z.number(),
  })
  .meta({ id: 'BoundaryCollection' })
export type BoundaryCollection = z.infer<typeof boundaryCollectionSchema>

export const boundariesQuerySchema = z.object({
  level: z.enum(GEO_LEVELS, { error: GEO_MESSAGES.invalidLevel }).default('state'),
  /** only this state (abbreviation or FIPS); all states otherwise */
  state: z
    .string()
    .trim()
    .regex(/^([A-Za-z]{2}|\d{2})$/, GEO_MESSAGES.invalidState)
    .transform((value) => value.toUpperCase())
    .optional(),
})
export type BoundariesQuery = z.input<typeof boundariesQuerySchema>

const tileCoordinate = z.coerce.number().int().min(0)
export const tileParamsSchema = z.object({
  z: tileCoordinate.max(GEO_TILE_MAX_ZOOM),
  x: tileCoordinate.max(INT32_MAX, INPUT_MESSAGES.int32TooLarge),
  y: tileCoordinate.max(INT32_MAX, INPUT_MESSAGES.int32TooLarge),
})

/**
 * Place labels of the offline basemap (GET /geo/places): state names at their largest polygon's centre and
 * the largest cities of the ZIP reference table. The reference data has no city populations, so a city's
 * population is estimated from its ZIPs: each ZCTA takes an equal share of its county's Census population.
 */
export const GEO_PLACE_KINDS = ['state', 'city'] as const
/** Cities served, largest first (the rest only matter beyond the zoom a basemap label is useful at). */
export const GEO_PLACE_CITY_LIMIT = 1500
export const GEO_STATE_LABEL_MIN_ZOOM = 3
/** [largest rank, first zoom it is labelled at]: the top N cities per zoom; later ranks from the last zoom + 1. */
export const GEO_CITY_ZOOM_STEPS: readonly (readonly [number, number])[] = [
  [12, 4],
  [40, 5],
  [120, 6],
  [400, 7],
  [1_000, 8],
] as const

/** The zoom from which a city of this rank (1 = most populous) is labelled. */
export function cityMinZoom(rank: number): number {
  for (const [maxRank, zoom] of GEO_CITY_ZOOM_STEPS) if (rank <= maxRank) return zoom
  return GEO_CITY_ZOOM_STEPS[GEO_CITY_ZOOM_STEPS.length - 1]![1] + 1
}

export const placePropertiesSchema = z.object({
  kind: z.enum(GEO_PLACE_KINDS),
  name: z.string(),
  state: z.string().describe('state abbreviation'),
  population: z.number().int().nullable().describe('Census population of a state; estimated from its ZIPs for a city'),
  rank: z.number().int().min(1).describe('1 = the most populous place of its kind'),
  min_zoom: z.number().describe('the zoom from which the place is labelled'),
})
export type PlaceProperties = z.infer<typeof placePropertiesSchema>

export const placeCollectionSchema = z
  .object({
    type: z.literal('FeatureCollection'),
    features: z.array(
      z.object({
        type: z.literal('Feature'),
        properties: placePropertiesSchema,
        geometry: z.object({ type: z.literal('Point'), coordinates: positionSchema }),
      }),
    ),
  })
  .meta({ id: 'PlaceCollection' })
export type PlaceCollection = z.infer<typeof placeCollectionSchema>

/** Whether x and y exist at zoom z. */
export function tileInRange(z: number, x: number, y: number): boolean {
  const size = 2 ** z
  return Number.isInteger(z) && z >= 0 && x >= 0 && y >= 0 && x < size && y < size
}

export const geoEndpoints = {
  boundaries: defineEndpoint({
    method: 'GET',
    path: '/geo/boundaries',
    summary: 'State or county outlines as simplified GeoJSON (the offline basemap); cached, with an ETag',
    tags: ['geo'],
    query: boundariesQuerySchema,
    response: boundaryCollectionSchema,
    errors: [400, 401, 403],
    security: ['bearer', 'shareToken'],
  }),
  places: defineEndpoint({
    method: 'GET',
    path: '/geo/places',
    summary: 'Label points of the offline basemap: states and the largest cities, each with the zoom it is labelled from',
    tags: ['geo'],
    response: placeCollectionSchema,
    errors: [401, 403],
    security: ['bearer', 'shareToken'],
  }),
  tile: defineEndpoint({
    method: 'GET',
    path: '/geo/tiles/{z}/{x}/{y}.mvt',
    summary: 'A Mapbox Vector Tile of the basemap: layers states and counties (counties from zoom 3)',
    description:
      'Binary body (application/vnd.mapbox-vector-tile). Built with ST_AsMVT on PostgreSQL and in Node on the embedded database; both give the same features.',
    tags: ['geo'],
    params: tileParamsSchema,
    response: z.any().describe('application/vnd.mapbox-vector-tile'),
    errors: [400, 401, 403, 404],
    security: ['bearer', 'shareToken'],
  }),
} as const
