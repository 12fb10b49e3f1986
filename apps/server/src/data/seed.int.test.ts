import { CONDITION_DRUGS, CONDITIONS, MAINTENANCE_DRUGS, SCALES, SyntheticDataset } from '@citrus/data-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { inject } from 'vitest'
import { createScratchDatabase, postgresAvailable } from '../../../../test/postgres.ts'
import { createDatabase, type Database } from '../db/database.ts'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../db/embedded.ts'
import { applyMigrations } from '../db/migrate.ts'
import { DATA_DICTIONARY } from '../services/data-dictionary/catalogue.ts'
import { rowCountOf } from './table-counts.ts'
import { MIGRATIONS_DIR } from '../runtime.ts'
import { latestSeed } from './loads.ts'
import { MATERIALIZED_VIEWS } from './refresh.ts'
import { silentSink } from './progress.ts'
import { DEFAULT_SEED, seedDataset } from './seed.ts'
import { ensureTestDataset } from './test-dataset.ts'

/** Synthetic tables with the columns and order that identify their content (no clocks, no sequences). */
const FINGERPRINTED: Record<string, { columns: string; order: string; where?: string }> = {
  health_systems: { columns: '*', order: 'id' },
  facilities: { columns: 'id, npi, name, facility_type, health_system_id, address_line_1, zip_code, latitude, longitude, geog, phone_number, bed_count, emergency_services', order: 'id', where: "source = 'synthetic'" },
  providers: { columns: 'id, npi, full_name, title, primary_taxonomy_code, gender, age, zip_code, latitude, longitude, geog, facility_id, accepting_new_patients, aggregated_insurance_networks_v1, last_verified_at, confidence', order: 'id', where: "source = 'synthetic'" },
  patients: { columns: '*', order: 'id' },
  claims: { columns: '*', order: 'id' },
  claim_diagnoses: { columns: '*', order: 'claim_id, sequence' },
  claim_procedures: { columns: '*', order: 'claim_id, line_number' },
  pharmacy_claims: { columns: '*', order: 'id' },
  snakebite_cases: { columns: '*', order: 'id' },
  antivenom_purchases: { columns: '*', order: 'id' },
  facility_prices: { columns: 'facility_id, procedure_code, setting, payer_name, plan_name, gross_charge, discounted_cash, negotiated_dollar, methodology, median_amount', order: 'facility_id, procedure_code, payer_name, plan_name', where: "source = 'synthetic'" },
  sales_territory_counties: { columns: '*', order: 'territory_id, county_fips' },
}

async function fingerprint(db: Database): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  // imported rows (other test files import into the shared database) are not part of the synthetic dataset
  for (const [table, { columns, order, where }] of Object.entries(FINGERPRINTED)) {
    const { rows } = await db.pool.query<{ n: string; digest: string }>(
      `SELECT count(*)::text AS n, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY ${order}), '')) AS digest FROM (SELECT ${columns} FROM ${table} WHERE ${where ?? 'true'}) x`,
    )
    out[table] = `${rows[0]!.n}:${rows[0]!.digest}`
  }
  return out
}

const scalar = async (db: Database, sql: string, params: unknown[] = []) => {
  const { rows } = await db.pool.query<{ v: string | number | null }>(sql, params)
  return Number(rows[0]?.v ?? 0)
}

describe('data seed (ci scale) on the test database', () => {
  const ctx = useTestDatabase({ dataset: true })

  it('records the load in data_loads with the counts of every table', async () => {
    const load = await latestSeed(ctx.db.pool)
    expect(load).toMatchObject({ kind: 'seed', scale: 'ci', seed: DEFAULT_SEED, status: 'done' })
    expect(load!.finished_at).toBeInstanceOf(Date)
    const counts = load!.counts as Record<string, number>
    expect(counts.providers).toBe(SCALES.ci.providers)
    // snakebites happen to sampled patients: no extra patient rows, and most of those bitten have other care too
    expect(counts.patients).toBe(SCALES.ci.patients)
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM snakebite_cases WHERE patient_id < 1 OR patient_id > $1`, [SCALES.ci.patients])).toBe(0)
    const bitten = await scalar(ctx.db, `SELECT count(DISTINCT patient_id) AS v FROM snakebite_cases`)
    const withOtherCare = await scalar(
      ctx.db,
      `SELECT count(DISTINCT s.patient_id) AS v FROM snakebite_cases s WHERE EXISTS (SELECT 1 FROM claims c WHERE c.patient_id = s.patient_id AND c.id > 0)`,
    )
    expect(withOtherCare / bitten).toBeGreaterThan(0.8)
    for (const table of ['patients', 'claims', 'claim_diagnoses', 'claim_procedures', 'facilities', 'facility_prices', 'snakebite_cases']) {
      expect(counts[table], table).toBe(await scalar(ctx.db, `SELECT count(*) AS v FROM ${table} WHERE ${table === 'facilities' || table === 'facility_prices' ? "source = 'synthetic'" : 'true'}`))
    }
  })

  it('keeps referential integrity: foreign keys hold and every code and NPI a row names exists', async () => {
    const fks = await scalar(ctx.db, `SELECT count(*) AS v FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text IN ('claims', 'claim_diagnoses', 'claim_procedures', 'providers', 'facilities', 'snakebite_cases', 'pharmacy_claims', 'facility_prices', 'zips', 'counties')`)
    expect(fks).toBeGreaterThanOrEqual(12)
    const orphans: Record<string, string> = {
      'claims.rendering_npi': 'SELECT count(*) AS v FROM claims c WHERE NOT EXISTS (SELECT 1 FROM providers p WHERE p.npi = c.rendering_npi)',
      'claims.facility_npi': 'SELECT count(*) AS v FROM claims c WHERE c.facility_npi IS NOT NULL AND NOT EXISTS (SELECT 1 FROM facilities f WHERE f.npi = c.facility_npi AND f.id = c.facility_id)',
      'claim_diagnoses.icd10_code': 'SELECT count(*) AS v FROM claim_diagnoses d WHERE NOT EXISTS (SELECT 1 FROM icd10_codes i WHERE i.code = d.icd10_code)',
      'claim_procedures.procedure_code': 'SELECT count(*) AS v FROM claim_procedures l WHERE NOT EXISTS (SELECT 1 FROM procedure_codes p WHERE p.code = l.procedure_code)',
      'providers.primary_taxonomy_code': 'SELECT count(*) AS v FROM providers p WHERE NOT EXISTS (SELECT 1 FROM specialties s WHERE s.code = p.primary_taxonomy_code)',
      'providers.zip_code': 'SELECT count(*) AS v FROM providers p WHERE NOT EXISTS (SELECT 1 FROM zips z WHERE z.zip = p.zip_code)',
      'patients.zip_code': 'SELECT count(*) AS v FROM patients p WHERE NOT EXISTS (SELECT 1 FROM zips z WHERE z.zip = p.zip_code)',
      'facilities.zip_code': 'SELECT count(*) AS v FROM facilities f WHERE NOT EXISTS (SELECT 1 FROM zips z WHERE z.zip = f.zip_code)',
      'snakebite_cases.claim_id': 'SELECT count(*) AS v FROM snakebite_cases s WHERE NOT EXISTS (SELECT 1 FROM claims c WHERE c.id = s.claim_id AND c.patient_id = s.patient_id)',
      // a claim's lines carry its patient (the distribution column of every claim table under Citus, docs/scaling.md)
      'claim_diagnoses.patient_id': 'SELECT count(*) AS v FROM claim_diagnoses d JOIN claims c ON c.id = d.claim_id WHERE d.patient_id IS DISTINCT FROM c.patient_id',
      'claim_procedures.patient_id': 'SELECT count(*) AS v FROM claim_procedures l JOIN claims c ON c.id = l.claim_id WHERE l.patient_id IS DISTINCT FROM c.patient_id',
      'pharmacy_claims.prescriber_npi': 'SELECT count(*) AS v FROM pharmacy_claims r WHERE NOT EXISTS (SELECT 1 FROM providers p WHERE p.npi = r.prescriber_npi)',
      'claims without lines': 'SELECT count(*) AS v FROM claims c WHERE NOT EXISTS (SELECT 1 FROM claim_procedures l WHERE l.claim_id = c.id)',
      'claims without diagnoses': 'SELECT count(*) AS v FROM claims c WHERE NOT EXISTS (SELECT 1 FROM claim_diagnoses d WHERE d.claim_id = c.id)',
      'claim amounts = sum of lines': `SELECT count(*) AS v FROM claims c JOIN (SELECT claim_id, sum(list_amount) l, sum(negotiated_amount) n, sum(patient_amount) p FROM claim_procedures GROUP BY claim_id) s ON s.claim_id = c.id
        WHERE abs(s.l - c.list_amount) > 0.05 OR abs(s.n - c.negotiated_amount) > 0.05 OR abs(s.p - c.patient_amount) > 0.05`,
      'negotiated = insurer + patient': 'SELECT count(*) AS v FROM claim_procedures WHERE abs(negotiated_amount - insurer_amount - patient_amount) > 0.02',
      'points from coordinates': `SELECT count(*) AS v FROM providers WHERE geog IS NULL OR abs(ST_Y(geog::geometry) - latitude) > 1e-9 OR abs(ST_X(geog::geometry) - longitude) > 1e-9`,
      'facilities near their ZIP': `SELECT count(*) AS v FROM facilities f JOIN zips z ON z.zip = f.zip_code WHERE NOT ST_DWithin(f.geog, z.geog, 5000)`,
    }
    for (const [check, sql] of Object.entries(orphans)) expect(await scalar(ctx.db, sql), check).toBe(0)
  })

  it('spells city names as the places are called, never with "name" for "City" (issue 33)', async () => {
    const tables = { zips: 'city', providers: 'city', facilities: 'city', health_systems: 'city' } as const
    for (const [table, column] of Object.entries(tables)) {
      expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ${table} WHERE ${column} ~ '\\mname\\M'`), table).toBe(0)
    }
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM zips WHERE county_name ~ '\\mname\\M'`)).toBe(0)
    const { rows } = await ctx.db.pool.query<{ zip: string; city: string }>(`SELECT zip, city FROM zips WHERE zip IN ('84101', '64106', '07302') ORDER BY zip`)
    expect(rows).toEqual([
      { zip: '07302', city: 'Jersey City' },
      { zip: '64106', city: 'Kansas City' },
      { zip: '84101', city: 'Salt Lake City' },
    ])
  })

  it('derives every aggregate from the patient-level rows', async () => {
    // Atlas: distinct patients with a type 2 diabetes code, from the view and from the claims themselves
    const fromView = await scalar(ctx.db, `SELECT count(DISTINCT patient_id) AS v FROM mv_patient_diagnoses WHERE icd10_code LIKE 'E11%'`)
    const fromClaims = await scalar(ctx.db, `SELECT count(DISTINCT c.patient_id) AS v FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id WHERE d.icd10_code LIKE 'E11%'`)
    expect(fromView).toBeGreaterThan(0)
    expect(fromView).toBe(fromClaims)
    expect(await scalar(ctx.db, `SELECT sum(claim_count) AS v FROM mv_provider_code_volume WHERE code_kind = 'procedure'`)).toBe(
      await scalar(ctx.db, 'SELECT count(*) AS v FROM (SELECT DISTINCT claim_id, procedure_code FROM claim_procedures) x'),
    )
    expect(await scalar(ctx.db, 'SELECT sum(cases) AS v FROM mv_facility_snakebite')).toBe(await scalar(ctx.db, 'SELECT count(*) AS v FROM snakebite_cases'))
    expect(await scalar(ctx.db, 'SELECT sum(crofab_units_used) AS v FROM mv_facility_snakebite')).toBe(await scalar(ctx.db, `SELECT sum(units_used) AS v FROM snakebite_cases WHERE antivenom = 'crofab'`))
    expect(await scalar(ctx.db, 'SELECT sum(units) AS v FROM mv_facility_antivenom_purchases')).toBe(await scalar(ctx.db, 'SELECT sum(units) AS v FROM antivenom_purchases'))
    expect(await scalar(ctx.db, 'SELECT sum(patient_count) AS v FROM mv_provider_panel')).toBe(await scalar(ctx.db, 'SELECT count(*) AS v FROM (SELECT DISTINCT rendering_npi, patient_id FROM claims) x'))
    expect(await scalar(ctx.db, 'SELECT sum(claims_5yr) AS v FROM mv_prescriber_summaries')).toBe(await scalar(ctx.db, 'SELECT count(*) AS v FROM pharmacy_claims'))
  })

  it("keeps Care Connect's provider prices as the lines' own averages, and the cost page's sums per carrier (docs/decisions/0056)", async () => {
    // Care Connect's figures, row for row and digit for digit: avg() of the lines with units > 0 per (npi, code)
    const prices = `SELECT c.rendering_npi AS npi, l.procedure_code, count(*)::int AS line_count,
        round(avg(l.list_amount / l.units), 2) AS list, round(avg(l.negotiated_amount / l.units), 2) AS negotiated,
        round(avg(l.insurer_amount / l.units), 2) AS insurer, round(avg(l.patient_amount / l.units), 2) AS patient
      FROM claims c JOIN claim_procedures l ON l.claim_id = c.id WHERE l.units > 0 GROUP BY 1, 2`
    const view = `SELECT npi, procedure_code, line_count, avg_list_amount::text AS list, avg_negotiated_amount::text AS negotiated,
        avg_insurer_amount::text AS insurer, avg_patient_amount::text AS patient FROM mv_provider_prices WHERE line_count > 0`
    const asText = `SELECT npi, procedure_code, line_count, list::text, negotiated::text, insurer::text, patient::text FROM (${prices}) p`
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM (${view}) v`)).toBeGreaterThan(0)
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM (${view}) v`)).toBe(await scalar(ctx.db, `SELECT count(*) AS v FROM (${prices}) p`))
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${view}) EXCEPT (${asText})) x`)).toBe(0)
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${asText}) EXCEPT (${view})) x`)).toBe(0)

    // the cost page's sums: every line of every (npi, code), in all and per carrier (NULL included), exactly
    const perCarrier = `SELECT c.rendering_npi AS npi, l.procedure_code, c.insurer_name AS carrier, count(*)::int AS lines, sum(l.negotiated_amount)::text AS amount
      FROM claims c JOIN claim_procedures l ON l.claim_id = c.id GROUP BY 1, 2, 3`
    const unnested = `SELECT m.npi, m.procedure_code, u.carrier, u.lines, u.amount::text AS amount
      FROM mv_provider_prices m CROSS JOIN LATERAL unnest(m.carriers, m.carrier_sum_negotiated, m.carrier_line_count) AS u(carrier, amount, lines)`
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${perCarrier}) EXCEPT ALL (${unnested})) x`)).toBe(0)
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${unnested}) EXCEPT ALL (${perCarrier})) x`)).toBe(0)
    const totals = `SELECT c.rendering_npi AS npi, l.procedure_code, count(*)::int AS lines, sum(l.negotiated_amount)::text AS amount
      FROM claims c JOIN claim_procedures l ON l.claim_id = c.id GROUP BY 1, 2`
    const viewTotals = 'SELECT npi, procedure_code, all_line_count AS lines, sum_negotiated::text AS amount FROM mv_provider_prices'
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${totals}) EXCEPT ALL (${viewTotals})) x`)).toBe(0)
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${viewTotals}) EXCEPT ALL (${totals})) x`)).toBe(0)
    // the peer search's copy of the providers (mv_provider_points): every provider, nothing else
    const points = 'SELECT primary_taxonomy_code, latitude, longitude, npi FROM mv_provider_points'
    const providers = 'SELECT primary_taxonomy_code, latitude, longitude, npi FROM providers'
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${points}) EXCEPT ALL (${providers})) x`)).toBe(0)
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${providers}) EXCEPT ALL (${points})) x`)).toBe(0)
    // Price Check's candidates (mv_price_code_points): every listed (code, facility) with its point, nothing else
    const codePoints = 'SELECT procedure_code, latitude, longitude, facility_id FROM mv_price_code_points'
    const listed = `SELECT DISTINCT p.procedure_code, f.latitude, f.longitude, f.id FROM facility_prices p JOIN facilities f ON f.id = p.facility_id
      WHERE f.latitude IS NOT NULL AND f.longitude IS NOT NULL`
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${codePoints}) EXCEPT ALL (${listed})) x`)).toBe(0)
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM ((${listed}) EXCEPT ALL (${codePoints})) x`)).toBe(0)
    expect(await scalar(ctx.db, 'SELECT count(*) AS v FROM mv_price_code_points')).toBeGreaterThan(0)
    // stored by NPI, so that a provider's rows share a page or two: in NPI order when filled at once (PostgreSQL);
    // filled in turns (the embedded database, docs/decisions/0079), a turn may start on a page an earlier one left room on
    const pages = 'SELECT npi, count(DISTINCT (ctid::text::point)[0]) AS pages FROM mv_provider_prices GROUP BY npi'
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM (${pages}) x WHERE pages > 4`)).toBe(0)
    expect(await scalar(ctx.db, `SELECT round(avg(pages) * 100)::int AS v FROM (${pages}) x`)).toBeLessThan(150)
    if (inject('databaseMode') === 'postgres') {
      expect(await scalar(ctx.db, `SELECT count(*) AS v FROM (SELECT npi < lag(npi) OVER (ORDER BY ctid) AS back FROM mv_provider_prices) x WHERE back`)).toBe(0)
    }
  })

  it('keeps row counts of the filled aggregates, not of the views that define them (counting one runs the aggregate)', async () => {
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM table_row_counts WHERE table_name LIKE 'mv\\_%\\_source'`)).toBe(0)
    expect(await scalar(ctx.db, `SELECT row_count::int AS v FROM table_row_counts WHERE table_name = 'mv_provider_prices'`)).toBe(
      await scalar(ctx.db, 'SELECT count(*)::int AS v FROM mv_provider_prices'),
    )
  })

  it('leaves planner statistics on every materialized view it refreshed', async () => {
    for (const view of MATERIALIZED_VIEWS) {
      if ((await scalar(ctx.db, `SELECT count(*) AS v FROM (SELECT 1 FROM "${view}" LIMIT 1) x`)) === 0) continue
      expect(await scalar(ctx.db, 'SELECT count(*) AS v FROM pg_stats WHERE tablename = $1', [view]), view).toBeGreaterThan(0)
    }
  })

  it('writes pharmacy fills of maintenance drugs for patients diagnosed with a condition the drug treats', async () => {
    // (ndc, icd10 code) pairs: a drug and the diagnosis codes of every condition it is listed for
    const pairs = MAINTENANCE_DRUGS.flatMap((d) =>
      Object.entries(CONDITION_DRUGS).filter(([, plan]) => plan.drugs.some(([k]) => k === d.key))
        .flatMap(([key]) => CONDITIONS.find((c) => c.key === key)!.icd10.map(([code]) => [d.ndc, code] as const)))
    const fills = await scalar(ctx.db, `SELECT count(*) AS v FROM pharmacy_claims WHERE ndc = ANY ($1::text[])`, [MAINTENANCE_DRUGS.map((d) => d.ndc)])
    expect(fills).toBeGreaterThan(SCALES.ci.patients)
    const undiagnosed = await scalar(ctx.db,
      `SELECT count(*) AS v FROM pharmacy_claims r
       WHERE r.ndc = ANY ($1::text[]) AND NOT EXISTS (
         SELECT 1 FROM claims c JOIN claim_diagnoses d ON d.claim_id = c.id
         JOIN unnest($1::text[], $2::text[]) AS pair(ndc, code) ON pair.ndc = r.ndc AND pair.code = d.icd10_code
         WHERE c.patient_id = r.patient_id)`,
      [pairs.map(([ndc]) => ndc), pairs.map(([, code]) => code)])
    expect(undiagnosed).toBe(0)
    // antivenom lines stay with the snakebite cases
    expect(await scalar(ctx.db, `SELECT count(*) AS v FROM pharmacy_claims r WHERE NOT (r.ndc = ANY ($1::text[])) AND NOT EXISTS (SELECT 1 FROM snakebite_cases s WHERE s.patient_id = r.patient_id AND s.antivenom IS NOT NULL)`, [MAINTENANCE_DRUGS.map((d) => d.ndc)])).toBe(0)
  })

  it('matches the calibration targets within sampling tolerance', async () => {
    const adults = await scalar(ctx.db, `SELECT count(*) AS v FROM patients WHERE age >= 18 AND id <= $1`, [SCALES.ci.patients])
    const withHypertension = await scalar(ctx.db, `SELECT count(DISTINCT patient_id) AS v FROM mv_patient_diagnoses WHERE age >= 18 AND patient_id <= $1 AND icd10_code ~ '^I1[0-3]'`, [SCALES.ci.patients])
    // diagnosed in the claim window: most of the prevalent cases (visits are Poisson, at least one per condition)
    const hypertension = CONDITIONS.find((c) => c.key === 'hypertension')!
    const target = hypertension.diagnosed_adult_target ?? hypertension.adult_target
    expect(withHypertension / adults).toBeGreaterThan(target * 0.75)
    expect(withHypertension / adults).toBeLessThan(target * 1.15)
    const seniors = await scalar(ctx.db, `SELECT avg((payer_type = 'medicare')::int) AS v FROM patients WHERE age >= 65`)
    expect(seniors).toBeGreaterThan(0.85)
    const children = await scalar(ctx.db, `SELECT avg((payer_type = 'medicare')::int) AS v FROM patients WHERE age < 18`)
    expect(children).toBeLessThan(0.02)
    const female = await scalar(ctx.db, `SELECT avg((gender = 'F')::int) AS v FROM patients WHERE id <= $1`, [SCALES.ci.patients])
    expect(female).toBeGreaterThan(0.47)
    expect(female).toBeLessThan(0.54)
    // snakebites concentrate in the South and Southwest: Texas leads, Texas + North Carolina ~ a quarter
    const { rows: top } = await ctx.db.pool.query<{ state: string; n: string }>('SELECT state, count(*)::text AS n FROM snakebite_cases GROUP BY state ORDER BY count(*) DESC, state LIMIT 3')
    expect(top[0]!.state).toBe('TX')
    const southShare = await scalar(ctx.db, `SELECT avg((state IN ('TX','NC','GA','FL','AZ','VA','TN','AL','AR','OK','SC','LA','MS','NM'))::int) AS v FROM snakebite_cases`)
    expect(southShare).toBeGreaterThan(0.7)
    // clinicians by kind: physicians are about a sixth of individual NPIs
    const physicians = await scalar(ctx.db, `SELECT avg((provider_kind = 'physician')::int) AS v FROM providers WHERE source = 'synthetic'`)
    expect(physicians).toBeGreaterThan(0.13)
    expect(physicians).toBeLessThan(0.2)
    // the most populous state has the most providers
    const { rows: states } = await ctx.db.pool.query<{ state: string }>(`SELECT state FROM providers WHERE source = 'synthetic' GROUP BY state ORDER BY count(*) DESC LIMIT 1`)
    expect(states[0]!.state).toBe('CA')
  })
})

describe('data dictionary catalogue', () => {
  const ctx = useTestDatabase({ dataset: true })

  it('points the claims and provider tabs at real tables with live row counts and real columns', async () => {
    const set = DATA_DICTIONARY.find((s) => s.key === 'claims')!
    for (const tab of set.tabs) {
      const counted = await rowCountOf(ctx.db.pool, tab.table)
      expect(counted.count, tab.label).toBeGreaterThan(0)
      const { rows } = await ctx.db.pool.query<{ attname: string }>(`SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`, [`public.${tab.table}`])
      const columns = new Set(rows.map((r) => r.attname))
      // plain column names must exist; "a.b" rows name a related table's column, "a, b" several columns
      for (const row of tab.rows) if (!row.column.includes('.')) for (const name of row.column.split(', ')) expect(columns.has(name), `${tab.table}.${name}`).toBe(true)
    }
  })
})

describe('determinism: the same seed gives the same rows in any database', () => {
  let scratchDb: Database
  let stop: () => Promise<void>
  let shared: Database
  beforeAll(async () => {
    shared = createDatabase(inject('databaseUrl'), { maxConnections: 4 })
    await ensureTestDataset(shared.pool, inject('databaseUrl'))
    // a database of its own (re-seeding the shared one would pull rows from under other test files)
    let url: string
    if (await postgresAvailable()) {
      const scratch = await createScratchDatabase()
      url = scratch.url
      stop = scratch.drop
    } else {
      const embedded: EmbeddedPostgres = await startEmbeddedPostgres({ maxConnections: 8 })
      url = embedded.url
      stop = embedded.stop
    }
    await applyMigrations(url, MIGRATIONS_DIR)
    scratchDb = createDatabase(url, { maxConnections: 4 })
  })
  afterAll(async () => {
    await scratchDb?.close()
    await shared?.close()
    await stop?.()
  })

  it('loads the same rows as the shared test database for the same seed, replaces them on a re-seed, and differs for another seed', async () => {
    // the load drops an empty table's secondary indexes and builds them after its rows: every one comes back
    const indexes = async () =>
      (
        await scratchDb.pool.query<{ def: string }>(
          `SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('providers', 'patients', 'claims', 'claim_diagnoses', 'claim_procedures', 'pharmacy_claims', 'snakebite_cases', 'facility_prices') ORDER BY indexname`,
        )
      ).rows.map((r) => r.def)
    const migrated = await indexes()
    expect(migrated.some((d) => d.includes('USING gist'))).toBe(true)
    await seedDataset(scratchDb.pool, { scale: 'ci', seed: DEFAULT_SEED, sink: silentSink })
    expect(await indexes()).toEqual(migrated)
    const first = await fingerprint(scratchDb)
    expect(first).toEqual(await fingerprint(shared))

    // a different seed: different rows; the same counts for what the scale fixes
    await seedDataset(scratchDb.pool, { scale: 'ci', seed: DEFAULT_SEED + 1, sink: silentSink })
    const other = await fingerprint(scratchDb)
    expect(other.providers).not.toEqual(first.providers)
    expect(other.providers!.split(':')[0]).toBe(String(SCALES.ci.providers))
    expect(other.claims).not.toEqual(first.claims)

    // back to the first seed: exactly the first rows again (the re-seed replaced, nothing accumulated), also
    // when three generator threads write providers, claims (and their spilled rows) and price lists (COPY only)
    const lines: string[] = []
    await seedDataset(scratchDb.pool, { scale: 'ci', seed: DEFAULT_SEED, generatorThreads: 3, sink: { write: (t) => void lines.push(t), isTTY: false } })
    expect(await fingerprint(scratchDb)).toEqual(first)
    expect(await indexes()).toEqual(migrated)
    expect(lines[0]).toMatch(/\((COPY FROM STDIN, 3 generator threads per table|batched inserts, embedded database)\)/)
    if (lines[0]!.includes('COPY')) expect(lines.join('')).toMatch(/claims +[\d,]+ rows 100%/)
    const ds = new SyntheticDataset({ seed: DEFAULT_SEED, scale: 'ci' })
    const { rows } = await scratchDb.pool.query<{ npi: string; full_name: string }>('SELECT npi, full_name FROM providers WHERE id = 18')
    expect(rows[0]).toEqual({ npi: ds.provider(17).npi, full_name: ds.provider(17).full_name })
    const loads = await scratchDb.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM data_loads WHERE kind = 'seed' AND status = 'done'`)
    expect(loads.rows[0]!.n).toBe('3')
  }, 120_000)

  it('a load that fails part way (here: a claim line the database refuses) is recorded as failed and leaves every index in place', async () => {
    const indexes = async () =>
      (await scratchDb.pool.query<{ def: string }>(`SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`)).rows.map((r) => r.def)
    const before = await indexes()
    // a rule the generated rows break: every claim line has at least one unit
    await scratchDb.pool.query('ALTER TABLE claim_procedures ADD CONSTRAINT zz_refuse_lines CHECK (units < 0) NOT VALID')
    try {
      await expect(seedDataset(scratchDb.pool, { scale: 'ci', seed: DEFAULT_SEED, generatorThreads: 2, sink: silentSink })).rejects.toThrow(/zz_refuse_lines/)
    } finally {
      await scratchDb.pool.query('ALTER TABLE claim_procedures DROP CONSTRAINT zz_refuse_lines')
    }
    expect(await indexes()).toEqual(before)
    const { rows } = await scratchDb.pool.query<{ status: string; error: string | null }>(
      `SELECT status, error FROM data_loads WHERE kind = 'seed' ORDER BY id DESC LIMIT 1`,
    )
    expect(rows[0]!.status).toBe('failed')
    expect(rows[0]!.error).toMatch(/zz_refuse_lines/)
    // the lines' own transaction rolled back; the tables loaded before it kept their rows
    expect(await scalar(scratchDb, 'SELECT count(*) AS v FROM claim_procedures')).toBe(0)
    expect(await scalar(scratchDb, 'SELECT count(*) AS v FROM claims')).toBeGreaterThan(0)
    // and the next load succeeds
    await seedDataset(scratchDb.pool, { scale: 'ci', seed: DEFAULT_SEED, sink: silentSink })
    expect(await scalar(scratchDb, 'SELECT count(*) AS v FROM claim_procedures')).toBeGreaterThan(0)
  }, 120_000)
})
