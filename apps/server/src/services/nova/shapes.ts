import type pg from 'pg'
import type { Row } from '../../db/kysely.js'
import { territoryUseCase } from './queries.js'

/**
 * Region outlines for the Nova map: states from their Census polygons, sales territories as the union of their
 * counties, the country as the collection of the states; simplified (0.01°, ~1 km) and rounded to 4 decimals,
 * which keeps a national map near 1 MB. They are kept as the GeoJSON text PostGIS writes (a tiles answer splices
 * them in, docs/decisions/0054), one set per granularity, loaded whole on first use (the union of 3,231 counties
 * into territories takes seconds) and refreshed in the background after SHAPE_TTL_MS (outlines change only when
 * a load replaces the reference data), so no request waits for a reload.
 */
export const SHAPE_TTL_MS = 60 * 60_000
const SIMPLIFY = 0.01

/** GeoJSON geometry text by region id (state USPS code, territory id, 'US'). */
export type GeometryText = Map<string, string>

interface Entry {
  at: number
  value: Promise<GeometryText>
  refreshing: boolean
}

export class ShapeCache {
  private readonly entries = new Map<string, Entry>()
  constructor(private readonly pool: pg.Pool) {}

  private get(kind: string, load: () => Promise<GeometryText>): Promise<GeometryText> {
    const hit = this.entries.get(kind)
    if (hit) {
      if (Date.now() - hit.at >= SHAPE_TTL_MS && !hit.refreshing) {
        hit.refreshing = true
        load().then(
          (value) => this.entries.set(kind, { at: Date.now(), value: Promise.resolve(value), refreshing: false }),
          () => {
            hit.refreshing = false
            hit.at = Date.now()
          },
        )
      }
      return hit.value
    }
    const value = load()
    this.entries.set(kind, { at: Date.now(), value, refreshing: false })
    value.catch(() => {
      if (this.entries.get(kind)?.value === value) this.entries.delete(kind)
    })
    return value
  }

  /** Every state outline by USPS code. */
  states(): Promise<GeometryText> {
    return this.get('states', async () => {
      const { rows } = await this.pool.query<Pick<Row<'states'>, 'abbr'> & { g: string }>(
        `SELECT abbr, ST_AsGeoJSON(ST_SimplifyPreserveTopology(geom, ${SIMPLIFY}), 4) AS g FROM states WHERE geom IS NOT NULL`,
      )
      return new Map(rows.filter((r) => r.g).map((r) => [r.abbr, r.g]))
    })
  }

  /**
   * Every territory outline of the use case (union of the counties) by territory id. Snapping to 1e-4° can leave
   * a county invalid, so each is made valid before the union, and only the polygons of the result are kept.
   */
  territories(useCase: string): Promise<GeometryText> {
    const territoryCase = territoryUseCase(useCase)
    return this.get(`territories:${territoryCase}`, async () => {
      const { rows } = await this.pool.query<{ id: Row<'sales_territory_counties'>['territory_id']; g: string }>(
        `SELECT tc.territory_id AS id,
                ST_AsGeoJSON(ST_CollectionExtract(ST_SimplifyPreserveTopology(ST_Union(ST_MakeValid(ST_SnapToGrid(c.geom, 0.0001))), ${SIMPLIFY}), 3), 4) AS g
         FROM sales_territory_counties tc
         JOIN sales_territories t ON t.id = tc.territory_id
         JOIN counties c ON c.fips = tc.county_fips
         WHERE t.nova_use_case = $1 AND c.geom IS NOT NULL
         GROUP BY tc.territory_id`,
        [territoryCase],
      )
      return new Map(rows.filter((r) => r.g).map((r) => [String(r.id), r.g]))
    })
  }

  /** The country: every state outline as one multi-polygon, under 'US'. */
  country(): Promise<GeometryText> {
    return this.get('country', async () => {
      const { rows } = await this.pool.query<{ g: string | null }>(
        `SELECT ST_AsGeoJSON(ST_Multi(ST_CollectionExtract(ST_Collect(ST_SimplifyPreserveTopology(geom, ${SIMPLIFY})), 3)), 4) AS g
         FROM states WHERE geom IS NOT NULL`,
      )
      const g = rows[0]?.g
      return new Map(g ? [['US', g]] : [])
    })
  }
}
