/**
 * Each screen's main answer on `npm start` (issue 33 item 14: every one within 2 s at the demo scale). The server
 * is started the way `npm start` starts it (buildApp with warm connections and warm engines, the demo company and
 * users) on the embedded database holding the demo dataset: a scratch in-memory embedded database loaded exactly as
 * the first start loads it (seedDataset, demo scale, short turns), or DATABASE_URL when it is set (the data it holds).
 * The bench signs in as the demo users over HTTP and asks each screen's main answer exactly as the web client asks it
 * (the same paths, query strings and bodies; the requests a screen sends together are sent together): the first call
 * (cold, in the order a user meets the screens) and the median of 5 repeats, printed as a table beside the 2 s budget.
 *
 *   npm run bench -- screens [--repeats 5]
 *
 * Never passes or fails; the figures go to docs/performance.md ("Each screen's main answer on npm start").
 */
import { randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import {
  CARE_DEFAULT_RADIUS_M,
  NOVA_COUNTRY_REGION,
  NOVA_DEFAULT_POINT_TYPE,
  NOVA_DEFAULT_USE_CASE,
  PRICE_CHECK_DEFAULT_RADIUS_M,
} from '@citrus/contracts'
import { buildApp } from '../apps/server/src/app.ts'
import { loadEnv } from '../apps/server/src/config.ts'
import { latestSeed } from '../apps/server/src/data/loads.ts'
import { seedDataset } from '../apps/server/src/data/seed.ts'
import { createDatabase } from '../apps/server/src/db/database.ts'
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts'
import { applyMigrations } from '../apps/server/src/db/migrate.ts'
import { MIGRATIONS_DIR } from '../apps/server/src/runtime.ts'
import { DEFAULT_DEMO_PASSWORD, ensureDemoAccounts } from '../apps/server/src/seed/demo-accounts.ts'

const BUDGET_MS = 2000

/** One request of a screen, as the web client sends it. */
interface ScreenRequest {
  method: 'GET' | 'POST'
  path: string
  body?: unknown
}

/** A screen's main answer: the requests its first paint waits for, sent together, as one role. */
interface Screen {
  name: string
  role: 'user' | 'member' | 'citrus'
  requests: (context: { npi: string | null }) => ScreenRequest[]
}

const get = (path: string, query: Record<string, string | number | boolean> = {}): ScreenRequest => {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
  return { method: 'GET', path: `/api${path}${search ? `?${search}` : ''}` }
}
const post = (path: string, body: unknown): ScreenRequest => ({ method: 'POST', path: `/api${path}`, body })

/** Atlas condition search, E11.9 + J45 nationally (atlas-search.tsx): the map and the country card. */
const ATLAS_CODES = 'E11.9,J45'
const atlasGeneric = (query: { codes: string; granularity: string; region: string; regionType: string; census: boolean }) =>
  get('/atlas/generic', {
    icd10_cm_union_csv: query.codes,
    tile_granularity: query.granularity,
    search_within_region: query.region,
    search_within_region_type: query.regionType,
    include_census_data: query.census,
    include_hco_points: false,
    _bypass_cache: false,
  })
const atlasDrilldown = (level: 'COUNTRY' | 'STATE' | 'FACILITY', region: { level: string; value: string }, page_size: number) =>
  post('/atlas/drilldown', {
    drilldown_type: level,
    icd10_cm_union_csv: ATLAS_CODES,
    geo_filter_input: {
      code: 'region',
      filter_value: { filter_value_kind: 'GEO_WITHIN_REGION', region_level: region.level, search_within_region: region.value },
    },
    filter_inputs: [],
    include_payer_mix: level !== 'FACILITY',
    page: 0,
    page_size,
    ...(level === 'COUNTRY'
      ? {}
      : { sort_input: { code: 'patient_count', sort_direction: 'DESC' }, gender: null, min_age: null, max_age: null }),
    _bypass_cache: false,
  })

/** Price Check's example of issue 33: a knee MRI (73721) near ZIP 60601, cash. */
const PRICE_ZIP = '60601'
const PRICE_CODE = '73721'

const SCREENS: Screen[] = [
  { name: 'Launcher /apps (company products)', role: 'user', requests: () => [get('/company/products')] },
  {
    name: 'Care Connect rankings (60601, family medicine)',
    role: 'user',
    requests: () => [
      get('/care-select/rankings', {
        zip_code: PRICE_ZIP,
        omni_code: '207Q00000X',
        omni_genre: 'SPECIALTY',
        radius_in_m: CARE_DEFAULT_RADIUS_M,
      }),
    ],
  },
  {
    name: 'Price Check (73721 near 60601, cash)',
    role: 'member',
    requests: () => [
      get('/cost-transparency/procedure', {
        zip_code: PRICE_ZIP,
        procedure_codes_csv: PRICE_CODE,
        radius_in_m: PRICE_CHECK_DEFAULT_RADIUS_M,
      }),
    ],
  },
  {
    name: 'Provider cost page (first Price Check facility)',
    role: 'member',
    requests: ({ npi }) =>
      npi ? [get(`/cost-transparency/provider/${npi}`, { procedure_codes_csv: PRICE_CODE, zip_code: PRICE_ZIP })] : [],
  },
  {
    name: 'Atlas condition search E11.9 + J45, national (map + country card)',
    role: 'user',
    requests: () => [
      atlasGeneric({ codes: ATLAS_CODES, granularity: 'STATE', region: 'US', regionType: 'COUNTRY', census: false }),
      atlasDrilldown('COUNTRY', { level: 'COUNTRY', value: 'US' }, 1),
    ],
  },
  {
    name: 'Atlas drill-down, states (E11.9 + J45, 25 a page)',
    role: 'user',
    requests: () => [atlasDrilldown('STATE', { level: 'COUNTRY', value: 'US' }, 25)],
  },
  {
    name: 'Atlas drill-down, facilities of IL (E11.9 + J45)',
    role: 'user',
    requests: () => [atlasDrilldown('FACILITY', { level: 'STATE', value: 'IL' }, 25)],
  },
  {
    name: 'Atlas generic search (I10 within 50 km of 60601)',
    role: 'user',
    requests: () => [
      atlasGeneric({ codes: 'I10', granularity: 'ZIP_CODE_50KM', region: PRICE_ZIP, regionType: 'ZIP_CODE_50KM', census: true }),
    ],
  },
  {
    name: 'Nova national map (opportunity score by state)',
    role: 'citrus',
    requests: () => [
      post('/nova/v1/atlas/tiles', {
        geo_filter_input: {
          code: 'region',
          filter_value: {
            filter_value_kind: 'GEO_WITHIN_REGION',
            region_level: 'COUNTRY',
            search_within_region: NOVA_COUNTRY_REGION,
            granularity: 'STATE',
          },
        },
        map_selection: { code: 'map_selection', filter_value: 'serb_crofab_opportunity_score' },
        nova_use_case: NOVA_DEFAULT_USE_CASE,
        point_selection: NOVA_DEFAULT_POINT_TYPE,
      }),
    ],
  },
  { name: 'AI Hub context', role: 'user', requests: () => [get('/ai-hub/context')] },
  { name: 'Data dictionary', role: 'user', requests: () => [get('/data-dictionary')] },
]

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]!
}
const load = () => loadavg()[0]!.toFixed(1)

export async function benchScreens(options: { repeats: number }): Promise<void> {
  // the server's own log, read for the moment its Atlas indexes are built (services/atlas/warm.ts)
  let warmed: () => void = () => undefined
  const enginesWarm = new Promise<void>((resolve) => (warmed = resolve))
  // and for Care Select's warmed specialties (services/care-select/warm.ts; none when CARE_SELECT_WARM_SPECIALTIES is empty)
  let careWarmed: () => void = () => undefined
  const careWarm = new Promise<void>((resolve) => (careWarmed = resolve))
  const logStream = {
    write(line: string) {
      if (line.includes('Atlas indexes built') || line.includes('building the Atlas indexes failed')) warmed()
      if (line.includes('Care Select indexes built') || line.includes('warming Care Select failed')) careWarmed()
    },
  }
  const env = loadEnv({ LOG_LEVEL: 'info', OUTBOX_POLL_INTERVAL_MS: '0' })
  const embedded = env.DATABASE_URL ? null : await startEmbeddedPostgres({})
  const databaseUrl = env.DATABASE_URL ?? embedded!.url
  const mode = embedded ? 'embedded PGlite (scratch, in memory)' : 'PostgreSQL (DATABASE_URL)'
  await applyMigrations(databaseUrl, MIGRATIONS_DIR)
  const database = createDatabase(databaseUrl, { background: embedded !== null })
  let app: Awaited<ReturnType<typeof buildApp>> | null = null
  try {
    const seeded = await latestSeed(database.pool)
    if (!seeded) {
      console.log(`Loading the demo dataset into ${mode} as the first start does (a few minutes) ...`)
      const began = performance.now()
      await seedDataset(database.background, { scale: 'demo', shortTurns: true, sink: { isTTY: false, write: () => undefined } })
      console.log(`  loaded in ${((performance.now() - began) / 1000).toFixed(0)} s`)
    } else console.log(`${mode} holds scale ${seeded.scale} (seed ${seeded.seed}); no load`)
    await ensureDemoAccounts(database.prisma, env.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD)

    // as main.ts starts a single server process: warm pool connections and Atlas indexes
    const started = performance.now()
    app = await buildApp(
      {
        env,
        databaseUrl,
        databaseMode: embedded ? 'embedded' : 'postgres',
        jwtSecret: randomUUID() + randomUUID(),
        migrationsDir: MIGRATIONS_DIR,
        webDistDir: null,
      },
      { database, logger: { level: 'info', stream: logStream }, warmConnections: true, warmEngines: true },
    )
    await app.listen({ host: '127.0.0.1', port: 0 })
    const listening = performance.now()
    const address = app.server.address()
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    let atlasAt = NaN
    let careAt = NaN
    void enginesWarm.then(() => (atlasAt = performance.now()))
    void careWarm.then(() => (careAt = performance.now()))
    const warming = env.CARE_SELECT_WARM_SPECIALTIES.length > 0 ? [enginesWarm, careWarm] : [enginesWarm]
    await Promise.race([Promise.all(warming), new Promise((resolve) => setTimeout(resolve, 600_000))])
    console.log(
      `Server listening ${((listening - started) / 1000).toFixed(1)} s after buildApp; Atlas indexes built ${((atlasAt - listening) / 1000).toFixed(1)} s after listening; Care Select (${env.CARE_SELECT_WARM_SPECIALTIES.join(',') || 'not warmed'}) ${((careAt - listening) / 1000).toFixed(1)} s after listening (load average ${load()})`,
    )

    const tokens = new Map<string, string>()
    for (const role of ['user', 'member', 'citrus'] as const) {
      const email = `${role}@citrus.demo`
      const response = await fetch(`${base}/api/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: env.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD }),
      })
      if (response.status !== 200) throw new Error(`sign-in as ${email}: ${response.status} ${await response.text()}`)
      tokens.set(role, ((await response.json()) as { token: string }).token)
    }

    /** One call of a screen: its requests together; the wall time until the last answer, and what came back. */
    const call = async (screen: Screen, requests: ScreenRequest[]) => {
      const began = performance.now()
      const answers = await Promise.all(
        requests.map(async (r) => {
          const t = performance.now()
          const response = await fetch(`${base}${r.path}`, {
            method: r.method,
            headers: {
              authorization: `Bearer ${tokens.get(screen.role)!}`,
              'accept-encoding': 'gzip, br',
              ...(r.body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
          })
          const text = await response.text()
          return { status: response.status, text, ms: performance.now() - t }
        }),
      )
      return { ms: performance.now() - began, answers }
    }

    const context: { npi: string | null } = { npi: null }
    const rows: { name: string; role: string; cold: number; median: number; parts: string; status: string }[] = []
    for (const screen of SCREENS) {
      const requests = screen.requests(context)
      if (requests.length === 0) {
        rows.push({ name: screen.name, role: screen.role, cold: NaN, median: NaN, parts: '', status: 'skipped (no facility)' })
        continue
      }
      const cold = await call(screen, requests)
      const repeats: number[] = []
      for (let i = 0; i < options.repeats; i++) repeats.push((await call(screen, requests)).ms)
      const statuses = [...new Set(cold.answers.map((a) => a.status))]
      const bad = cold.answers.find((a) => a.status !== 200)
      if (screen.name.startsWith('Price Check') && !bad) context.npi = /"hco_npi":"(\d{10})"/.exec(cold.answers[0]!.text)?.[1] ?? null
      rows.push({
        name: screen.name,
        role: screen.role,
        cold: cold.ms,
        median: median(repeats),
        parts: cold.answers.length > 1 ? cold.answers.map((a) => a.ms.toFixed(0)).join(' + ') : '',
        status: bad ? `${bad.status} ${bad.text.slice(0, 80)}` : statuses.join(','),
      })
    }

    console.log(
      `\nEach screen's main answer over HTTP against ${mode}; cold = the first call after start (screens in this order), then the median of ${options.repeats} repeats; load average ${load()}`,
    )
    const header = `${'screen'.padEnd(66)} ${'role'.padEnd(6)} ${'cold ms'.padStart(8)} ${`median ${options.repeats}`.padStart(9)} ${'cold/2s'.padStart(8)} ${'median/cold'.padStart(11)}  status (cold parts ms)`
    console.log(header)
    console.log('-'.repeat(header.length))
    for (const r of rows)
      console.log(
        `${r.name.padEnd(66)} ${r.role.padEnd(6)} ${r.cold.toFixed(0).padStart(8)} ${r.median.toFixed(0).padStart(9)} ${(r.cold / BUDGET_MS).toFixed(2).padStart(8)} ${(r.median / r.cold).toFixed(2).padStart(11)}  ${r.status}${r.parts ? ` (${r.parts})` : ''}`,
      )
    const over = rows.filter((r) => r.cold > BUDGET_MS)
    console.log(over.length === 0 ? '\nEvery screen answered within 2 s cold.' : `\nOver 2 s cold: ${over.map((r) => r.name).join('; ')}`)
  } finally {
    await app?.close()
    await database.close()
    await embedded?.stop()
  }
}
