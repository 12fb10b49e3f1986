import type pg from 'pg'

/**
 * Region outlines for the Nova map: states from their Census polygons, sales territories as the union of their
 * counties, the country as the collection of the states; simplified (0.01°, ~1 km) and rounded to 4 decimals,
 * which keeps a national map near 1 MB. Outlines change only when a load replaces the reference data, so they
 * are kept in memory for SHAPE_TTL_MS.
 */
export const SHAPE_TTL_MS = 60 * 60_000
const SIMPLIFY = 0.01

type Geometry = { type: string; coordinates: unknown }
interface Entry {
  at: number
  geometry: Geometry | null
}

export class ShapeCache {
  private readonly entries = new Map<string, Entry>()
  constructor(private readonly pool: pg.Pool) {}

  private fresh(key: string): Entry | undefined {
    const hit = this.entries.get(key)
    return hit && Date.now() - hit.at < SHAPE_TTL_MS ? hit : undefined
  }

  private async load(
    keys: string[],
    fetch: (missing: string[]) => Promise<Map<string, Geometry | null>>,
  ): Promise<Map<string, Geometry | null>> {
    const out = new Map<string, Geometry | null>()
    const missing: string[] = []
    for (const key of keys) {
      const hit = this.fresh(key)
      if (hit) out.set(key, hit.geometry)
      else missing.push(key)
    }
    if (missing.length > 0) {
      const loaded = await fetch(missing)
      const at = Date.now()
      for (const key of missing) {
        const geometry = loaded.get(key) ?? null
        this.entries.set(key, { at, geometry })
        out.set(key, geometry)
      }
    }
    return out
  }

  /** State outlines by USPS code. */
  async states(abbrs: string[]): Promise<Map<string, Geometry | null>> {
    const byKey = await this.load(
      abbrs.map((a) => `state:${a}`),
      async (missing) => {
        const { rows } = await this.pool.query<{ abbr: string; g: string | null }>(
          `SELECT abbr, ST_AsGeoJSON(ST_SimplifyPreserveTopology(geom, ${SIMPLIFY}), 4) AS g FROM states WHERE abbr = ANY($1)`,
          [missing.map((k) => k.slice(6))],
        )
        return new Map(rows.map((r) => [`state:${r.abbr}`, r.g ? (JSON.parse(r.g) as Geometry) : null]))
      },
    )
    return new Map(abbrs.map((a) => [a, byKey.get(`state:${a}`) ?? null]))
  }

  /**
   * Territory outlines (union of the counties) by territory id. Snapping to 1e-4° can leave a county invalid,
   * so each is made valid before the union, and only the polygons of the result are kept.
   */
  async territories(ids: number[]): Promise<Map<number, Geometry | null>> {
    const byKey = await this.load(
      ids.map((id) => `territory:${id}`),
      async (missing) => {
        const { rows } = await this.pool.query<{ id: number; g: string | null }>(
          `SELECT tc.territory_id AS id,
                  ST_AsGeoJSON(ST_CollectionExtract(ST_SimplifyPreserveTopology(ST_Union(ST_MakeValid(ST_SnapToGrid(c.geom, 0.0001))), ${SIMPLIFY}), 3), 4) AS g
           FROM sales_territory_counties tc JOIN counties c ON c.fips = tc.county_fips
           WHERE tc.territory_id = ANY($1) AND c.geom IS NOT NULL
           GROUP BY tc.territory_id`,
          [missing.map((k) => Number(k.slice(10)))],
        )
        return new Map(rows.map((r) => [`territory:${r.id}`, r.g ? (JSON.parse(r.g) as Geometry) : null]))
      },
    )
    return new Map(ids.map((id) => [id, byKey.get(`territory:${id}`) ?? null]))
  }

  /** The country: every state outline as one multi-polygon. */
  async country(): Promise<Geometry | null> {
    const byKey = await this.load(['country:US'], async () => {
      const { rows } = await this.pool.query<{ g: string | null }>(
        `SELECT ST_AsGeoJSON(ST_Multi(ST_CollectionExtract(ST_Collect(ST_SimplifyPreserveTopology(geom, ${SIMPLIFY})), 3)), 4) AS g
         FROM states WHERE geom IS NOT NULL`,
      )
      const g = rows[0]?.g
      return new Map([['country:US', g ? (JSON.parse(g) as Geometry) : null]])
    })
    return byKey.get('country:US') ?? null
  }
}
