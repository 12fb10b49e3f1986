import { VectorTile } from '@mapbox/vector-tile'
import {
  boundaryCollectionSchema,
  cityMinZoom,
  GEO_COUNTY_MIN_ZOOM,
  GEO_MESSAGES,
  GEO_PLACE_CITY_LIMIT,
  GEO_STATE_LABEL_MIN_ZOOM,
  MVT_CONTENT_TYPE,
  placeCollectionSchema,
  type PlaceCollection,
} from '@citrus/contracts'
import { PbfReader } from 'pbf'
import request from 'supertest'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { createTenant, loginTokenFor, shareTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { bufferedTileBounds, buildVectorTile, TILE_EXTENT, tileEncoderOf } from '../../lib/vector-tiles.ts'
import { BASEMAP_LAYERS } from '../../services/geo/boundaries.ts'

type Feature = { type: 'Feature'; id: string; properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown[] } }
type Collection = { type: 'FeatureCollection'; level: string; tolerance: number; features: Feature[] }

/** Features of a decoded tile layer: id, properties and the bounding box in tile units. */
function decodeLayers(body: Buffer) {
  const tile = new VectorTile(new PbfReader(body))
  const layers: Record<string, Map<number, { properties: Record<string, unknown>; bbox: number[] }>> = {}
  for (const [name, layer] of Object.entries(tile.layers)) {
    const features = new Map<number, { properties: Record<string, unknown>; bbox: number[] }>()
    expect(layer.extent).toBe(TILE_EXTENT)
    for (let i = 0; i < layer.length; i++) {
      const feature = layer.feature(i)
      expect(feature.type, `${name} geometry type`).toBe(3) // polygon
      features.set(Number(feature.id), { properties: feature.properties as Record<string, unknown>, bbox: feature.bbox() })
    }
    layers[name] = features
  }
  return layers
}

// Tile 5/7/12: Kansas and its neighbours, well inside the country.
const KANSAS = { z: 5, x: 7, y: 12 }
const envelope = (t: { z: number; x: number; y: number }) => `ST_MakeEnvelope(${bufferedTileBounds(t).join(', ')}, 4326)`

describe('geo: the offline basemap', () => {
  const ctx = useTestApp({}, { dataset: true })
  let staff: string
  let guestToken: string
  let apiKey: string

  beforeAll(async () => {
    const tenant = await createTenant(ctx.db, { roles: ['member', 'admin'], products: [{ product_group: 'CARE_SELECT' }] })
    staff = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const admin = await loginTokenFor(tenant.users[1]!, tenant.company.company_name)
    const created = await request(ctx.app.server)
      .post('/api/admin/api-token')
      .set('Authorization', `Bearer ${admin}`)
      .send({ name: 'maps' })
    expect(created.status).toBe(200)
    apiKey = created.body.token as string
    // a link whose api_endpoints do not list the geo endpoints: boundaries are not customer data
    guestToken = await shareTokenFor(ctx.db, tenant, {
      client_routes: ['/member-recommendations'],
      api_endpoints: ['GET /care-select/rankings'],
      role: 'member',
    })
  })

  const get = (path: string, token: string | null = staff) => {
    const call = request(ctx.app.server).get(`/api${path}`)
    return token ? call.set('Authorization', `Bearer ${token}`) : call
  }
  const sql = async <T>(text: string, params: unknown[] = []) => (await ctx.db.pool.query(text, params)).rows as T[]
  const one = async <T>(text: string) => (await sql<T>(text))[0]!

  it('needs a credential: 401 in the error envelope', async () => {
    for (const path of ['/geo/boundaries?level=state', '/geo/tiles/3/1/3.mvt', '/geo/places']) {
      const response = await get(path, null)
      expect(response.status, path).toBe(401)
      expect(response.body).toMatchObject({ message: 'Authentication required', code: 'UNAUTHORIZED', status: 401 })
    }
  })

  describe('GET /geo/boundaries', () => {
    it('states: every state with a polygon, as simplified GeoJSON, recounted with SQL', async () => {
      const response = await get('/geo/boundaries?level=state')
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toMatch(/^application\/json/)
      const body = response.body as Collection
      // the body is pre-serialised by the database: it must still be exactly the contract's shape
      expect(boundaryCollectionSchema.safeParse(body).error).toBeUndefined()
      expect(body).toMatchObject({ type: 'FeatureCollection', level: 'state', tolerance: 0.01 })
      const expected = await sql<{ fips: string; name: string; abbr: string }>(
        'SELECT fips, name, abbr FROM states WHERE geom IS NOT NULL ORDER BY fips',
      )
      expect(expected.length).toBeGreaterThanOrEqual(50)
      expect(body.features.map((f) => f.id)).toEqual(expected.map((s) => s.fips))
      const california = body.features.find((f) => f.id === '06')!
      const populations = await sql<{ fips: string; population: number | null }>('SELECT fips, population FROM states ORDER BY fips')
      for (const { fips, population } of populations) {
        expect(body.features.find((f) => f.id === fips)?.properties.population ?? null, fips).toBe(population)
      }
      expect(california.properties).toEqual({
        fips: '06',
        name: 'California',
        level: 'state',
        state_fips: '06',
        abbr: 'CA',
        population: populations.find((p) => p.fips === '06')!.population,
      })
      expect(['MultiPolygon', 'Polygon']).toContain(california.geometry.type)
      // simplified: fewer vertices than the stored polygon, but still a real outline
      const { stored, simplified } = await one<{ stored: number; simplified: number }>(
        `SELECT ST_NPoints(geom) AS stored, ST_NPoints(ST_SimplifyPreserveTopology(geom, 0.01)) AS simplified FROM states WHERE fips = '06'`,
      )
      const served = JSON.stringify(california.geometry.coordinates).match(/\[-?\d+(\.\d+)?,-?\d+(\.\d+)?\]/g)!.length
      expect(served).toBe(simplified)
      expect(served).toBeLessThan(stored)
      expect(served).toBeGreaterThan(100)
    })

    it('counties of one state by abbreviation or FIPS, recounted with SQL', async () => {
      const { count } = await one<{ count: number }>(
        `SELECT count(*)::int AS count FROM counties WHERE state_fips = '20' AND geom IS NOT NULL`,
      )
      expect(count).toBe(105) // Kansas has 105 counties
      for (const state of ['KS', 'ks', '20']) {
        const response = await get(`/geo/boundaries?level=county&state=${state}`)
        expect(response.status, state).toBe(200)
        const body = response.body as Collection
        expect(body.features.length).toBe(count)
        expect(body.features.every((f) => f.properties.state_fips === '20' && f.properties.abbr === 'KS')).toBe(true)
        expect(body.features.find((f) => f.id === '20173')?.properties).toMatchObject({
          fips: '20173',
          name: 'Sedgwick',
          level: 'county',
          state_fips: '20',
          abbr: 'KS',
        })
      }
    })

    it('all counties nationally, recounted with SQL', async () => {
      const response = await get('/geo/boundaries?level=county')
      expect(response.status).toBe(200)
      const { count } = await one<{ count: number }>(
        'SELECT count(*)::int AS count FROM counties c JOIN states s ON s.fips = c.state_fips WHERE c.geom IS NOT NULL',
      )
      expect(count).toBeGreaterThan(3000)
      expect((response.body as Collection).features.length).toBe(count)
      expect(boundaryCollectionSchema.safeParse(response.body).error).toBeUndefined()
    })

    it('answers with an ETag and 304 Not Modified for a matching If-None-Match', async () => {
      const first = await get('/geo/boundaries?level=state')
      const etag = first.headers.etag as string
      expect(etag).toMatch(/^".+"$/)
      expect(first.headers['cache-control']).toBe('private, max-age=3600')
      const again = await get('/geo/boundaries?level=state').set('If-None-Match', etag)
      expect(again.status).toBe(304)
      expect(again.text ?? '').toBe('')
      const other = await get('/geo/boundaries?level=state').set('If-None-Match', '"stale"')
      expect(other.status).toBe(200)
      expect(other.headers.etag).toBe(etag)
    })

    it('an API key works like a login', async () => {
      const response = await get('/geo/boundaries?level=state', apiKey)
      expect(response.status).toBe(200)
      expect((response.body as Collection).features.length).toBeGreaterThanOrEqual(50)
      expect((await get('/geo/tiles/3/1/3.mvt', apiKey)).status).toBe(200)
    })

    it('refuses a bad level or state with a 400 envelope', async () => {
      const level = await get('/geo/boundaries?level=zip')
      expect(level.status).toBe(400)
      expect(level.body, JSON.stringify(level.body)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' })
      expect(JSON.stringify(level.body)).toContain(GEO_MESSAGES.invalidLevel)
      const state = await get('/geo/boundaries?level=county&state=KAN')
      expect(state.status).toBe(400)
      expect(JSON.stringify(state.body)).toContain(GEO_MESSAGES.invalidState)
    })

    it('a shareable-link guest may read them whatever the api_endpoints of the link; a bad link token is 401', async () => {
      const response = await request(ctx.app.server).get('/api/geo/boundaries').query({ level: 'state', token: guestToken })
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      expect((response.body as Collection).features.length).toBeGreaterThanOrEqual(50)
      const bad = await request(ctx.app.server).get('/api/geo/boundaries').query({ level: 'state', token: 'not-a-token' })
      expect(bad.status).toBe(401)
    })
  })

  describe('GET /geo/tiles/{z}/{x}/{y}.mvt', () => {
    it('a tile decodes to the states and counties that intersect it, recounted with SQL', async () => {
      const response = await get(`/geo/tiles/${KANSAS.z}/${KANSAS.x}/${KANSAS.y}.mvt`)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => done(null, Buffer.concat(chunks)))
        })
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe(MVT_CONTENT_TYPE)
      const layers = decodeLayers(response.body as Buffer)
      expect(Object.keys(layers).sort()).toEqual(['counties', 'states'])
      const states = await sql<{ fips: string }>(`SELECT fips FROM states WHERE ST_Intersects(geom, ${envelope(KANSAS)}) ORDER BY fips`)
      expect([...layers.states!.keys()].sort((a, b) => a - b)).toEqual(states.map((s) => Number(s.fips)))
      expect(layers.states!.get(20)?.properties).toEqual({ fips: '20', name: 'Kansas', abbr: 'KS', level: 'state' })
      const counties = await sql<{ fips: string }>(`SELECT fips FROM counties WHERE ST_Intersects(geom, ${envelope(KANSAS)})`)
      expect(counties.length).toBeGreaterThan(300)
      expect(layers.counties!.size).toBe(counties.length)
      expect(layers.counties!.get(20173)?.properties).toEqual({
        fips: '20173',
        name: 'Sedgwick',
        state_fips: '20',
        abbr: 'KS',
        level: 'county',
      })
    })

    it(`has no county layer below zoom ${GEO_COUNTY_MIN_ZOOM}, and an ETag`, async () => {
      const response = await get('/geo/tiles/2/0/1.mvt')
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => done(null, Buffer.concat(chunks)))
        })
      expect(response.status).toBe(200)
      const layers = decodeLayers(response.body as Buffer)
      expect(Object.keys(layers)).toEqual(['states'])
      const states = await sql<{ fips: string }>(`SELECT fips FROM states WHERE ST_Intersects(geom, ${envelope({ z: 2, x: 0, y: 1 })})`)
      expect(states.length).toBeGreaterThan(20)
      expect(layers.states!.size).toBe(states.length)
      const again = await get('/geo/tiles/2/0/1.mvt').set('If-None-Match', response.headers.etag as string)
      expect(again.status).toBe(304)
    })

    it('an empty tile (open ocean) is an empty 200 body; outside the pyramid 404; a bad zoom 400', async () => {
      const ocean = await get('/geo/tiles/6/10/30.mvt')
      expect(ocean.status).toBe(200)
      expect(Number(ocean.headers['content-length'] ?? 0)).toBe(0)
      const outside = await get('/geo/tiles/3/8/1.mvt')
      expect(outside.status).toBe(404)
      expect(outside.body).toMatchObject({ status: 404, message: GEO_MESSAGES.tileOutOfRange(3, 8, 1) })
      const zoom = await get('/geo/tiles/13/1/1.mvt')
      expect(zoom.status).toBe(400)
      const word = await get('/geo/tiles/a/1/1.mvt')
      expect(word.status).toBe(400)
    })

    it('a shareable-link guest may read tiles', async () => {
      const response = await request(ctx.app.server).get('/api/geo/tiles/3/1/3.mvt').query({ token: guestToken })
      expect(response.status).toBe(200)
    })

    it('encodes with ST_AsMVT where PostGIS has protobuf-c (PostgreSQL), in Node where it has not (embedded)', async () => {
      expect(await tileEncoderOf(ctx.db.pool)).toBe(inject('databaseMode') === 'postgres' ? 'postgis' : 'node')
    })

    it.runIf(inject('databaseMode') === 'postgres')('ST_AsMVT and the Node encoder give the same tile on PostgreSQL', async () => {
      for (const tile of [KANSAS, { z: 3, x: 1, y: 3 }, { z: 8, x: 44, y: 101 }]) {
        const postgis = decodeLayers(await buildVectorTile(ctx.db.pool, 'postgis', tile, BASEMAP_LAYERS))
        const node = decodeLayers(await buildVectorTile(ctx.db.pool, 'node', tile, BASEMAP_LAYERS))
        expect(Object.keys(node).sort()).toEqual(Object.keys(postgis).sort())
        for (const [name, features] of Object.entries(postgis)) {
          const other = node[name]!
          // features that reach into the tile itself (ones only in the 64-unit buffer may differ by a sliver)
          const inside = (bbox: number[]) => bbox[2]! > 0 && bbox[0]! < TILE_EXTENT && bbox[3]! > 0 && bbox[1]! < TILE_EXTENT
          const onlyNode = [...other].filter(([id, f]) => inside(f.bbox) && !features.has(id)).map(([id]) => id)
          const onlyPostgis = [...features].filter(([id, f]) => inside(f.bbox) && !other.has(id)).map(([id]) => id)
          expect({ onlyNode, onlyPostgis }, `${name} ids at ${tile.z}/${tile.x}/${tile.y}`).toEqual({ onlyNode: [], onlyPostgis: [] })
          for (const [id, feature] of features) {
            if (!other.has(id) || !inside(feature.bbox)) continue
            expect(other.get(id)!.properties, `${name} ${id}`).toEqual(feature.properties)
            // same outline: inside the tile the bounding boxes agree to a few units (of 4096) after each encoder's rounding
            const clamp = (value: number) => Math.min(TILE_EXTENT, Math.max(0, value))
            const diff = Math.max(...other.get(id)!.bbox.map((value, i) => Math.abs(clamp(value) - clamp(feature.bbox[i]!))))
            expect(
              diff,
              `${name} ${id} at ${tile.z}/${tile.x}/${tile.y}: node ${other.get(id)!.bbox} postgis ${feature.bbox}`,
            ).toBeLessThanOrEqual(4)
          }
        }
      }
    })
  })

  describe('GET /geo/places', () => {
    it('states: one label point per state with a polygon, inside the state, labelled from zoom 3', async () => {
      const response = await get('/geo/places')
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toMatch(/^application\/json/)
      // pre-serialised by the database: it must still be exactly the contract's shape
      expect(placeCollectionSchema.safeParse(response.body).error).toBeUndefined()
      // compact: one small download for every map (no blanks around ':' and ',')
      expect(response.text).not.toMatch(/" : |, "/)
      expect(response.text.length).toBeLessThan(300_000)
      const body = response.body as PlaceCollection
      const states = body.features.filter((f) => f.properties.kind === 'state')
      const expected = await sql<{ abbr: string; name: string; population: number | null }>(
        'SELECT abbr, name, population FROM states WHERE geom IS NOT NULL ORDER BY population DESC NULLS LAST, fips',
      )
      expect(states.map((f) => [f.properties.state, f.properties.name, f.properties.population, f.properties.rank])).toEqual(
        expected.map((s, i) => [s.abbr, s.name, s.population, i + 1]),
      )
      expect(states.every((f) => f.properties.min_zoom === GEO_STATE_LABEL_MIN_ZOOM)).toBe(true)
      // every point lies in its own state (the largest polygon's centre, or a point on it), checked by PostGIS
      const outside = await sql<{ abbr: string }>(
        `SELECT p.abbr FROM json_to_recordset($1::json) AS p(abbr text, lng float8, lat float8)
         JOIN states s ON s.abbr = p.abbr WHERE NOT ST_Intersects(s.geom, ST_Buffer(ST_SetSRID(ST_MakePoint(p.lng, p.lat), 4326), 0.002))`,
        [JSON.stringify(states.map((f) => ({ abbr: f.properties.state, lng: f.geometry.coordinates[0], lat: f.geometry.coordinates[1] })))],
      )
      expect(outside).toEqual([])
      // Michigan on its lower peninsula, Hawaii on the Big Island (the largest polygons)
      const at = (abbr: string) => states.find((f) => f.properties.state === abbr)!.geometry.coordinates
      expect(at('MI')[1]).toBeLessThan(45.8)
      expect(at('HI')[1]).toBeLessThan(20.3)
    })

    it('cities: the largest by the population their ZCTAs share of their counties, recounted in JavaScript', async () => {
      const body = (await get('/geo/places')).body as PlaceCollection
      const cities = body.features.filter((f) => f.properties.kind === 'city')
      // the estimate recomputed from the raw rows: each ZCTA takes an equal share of its county's population
      const zips = await sql<{ city: string; state: string; county_fips: string; latitude: number; longitude: number }>(
        'SELECT city, state, county_fips, latitude, longitude FROM zips WHERE is_zcta AND county_fips IS NOT NULL',
      )
      const counties = new Map(
        (await sql<{ fips: string; population: number | null }>('SELECT fips, population FROM counties')).map((c) => [
          c.fips,
          c.population,
        ]),
      )
      const zctas = new Map<string, number>()
      for (const z of zips) zctas.set(z.county_fips, (zctas.get(z.county_fips) ?? 0) + 1)
      const estimate = new Map<string, { population: number; lat: number; lng: number; n: number }>()
      for (const z of zips) {
        const population = counties.get(z.county_fips)
        if (population === null || population === undefined) continue
        const key = `${z.city}|${z.state}`
        const city = estimate.get(key) ?? { population: 0, lat: 0, lng: 0, n: 0 }
        city.population += population / zctas.get(z.county_fips)!
        city.lat += z.latitude
        city.lng += z.longitude
        city.n += 1
        estimate.set(key, city)
      }
      const ranked = [...estimate.entries()].sort((a, b) => b[1].population - a[1].population)
      expect(cities.length).toBe(Math.min(GEO_PLACE_CITY_LIMIT, ranked.length))
      expect(cities.length).toBeGreaterThan(1_000)
      for (const [i, feature] of cities.slice(0, 100).entries()) {
        const [key, city] = ranked[i]!
        expect(`${feature.properties.name}|${feature.properties.state}`, `rank ${i + 1}`).toBe(key)
        expect(feature.properties.rank).toBe(i + 1)
        expect(feature.properties.population).toBe(Math.round(city.population))
        expect(feature.geometry.coordinates[0]).toBeCloseTo(city.lng / city.n, 2)
        expect(feature.geometry.coordinates[1]).toBeCloseTo(city.lat / city.n, 2)
      }
      // ranked by population, the top few labelled first
      for (const feature of cities) expect(feature.properties.min_zoom, feature.properties.name).toBe(cityMinZoom(feature.properties.rank))
      expect(cities.filter((f) => f.properties.min_zoom <= 4).length).toBe(12)
      expect(cities.slice(0, 12).map((f) => `${f.properties.name}, ${f.properties.state}`)).toEqual(
        expect.arrayContaining(['Houston, TX', 'Chicago, IL', 'Los Angeles, CA']),
      )
    })

    it('an ETag and 304; a shareable-link guest may read them whatever its api_endpoints', async () => {
      const first = await get('/geo/places')
      const etag = first.headers.etag as string
      expect(etag).toMatch(/^".+"$/)
      expect((await get('/geo/places').set('If-None-Match', etag)).status).toBe(304)
      const guest = await request(ctx.app.server).get('/api/geo/places').query({ token: guestToken })
      expect(guest.status).toBe(200)
      expect(guest.headers.etag).toBe(etag)
    })
  })
})
