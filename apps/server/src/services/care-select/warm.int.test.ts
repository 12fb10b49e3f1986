import { CARE_DEFAULT_RADIUS_M } from '@citrus/contracts'
import request from 'supertest'
import { afterAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, testConfig, useTestDatabase } from '../../../../../test/helpers.ts'
import { buildApp } from '../../app.ts'
import { parseEnv } from '../../config.ts'
import { careSelectCandidates, heldSpecialtyIndex, setCandidateIndexMaxProviders } from '../../engines/care-select/candidate-index.ts'
import { setEngineMemoryBudget } from '../../lib/engine-budget.ts'
import { engineBuildStats } from '../../lib/engine-stats.ts'
import { dataVersion } from '../../lib/versioned-cache.ts'
import { warmCareSelect } from './warm.ts'

const FAMILY_MEDICINE = '207Q00000X'
const INTERNAL_MEDICINE = '207R00000X'
const builds = () => engineBuildStats().get('care_select_candidates')?.builds ?? 0

describe('Care Select warmed before anyone searches (issue 33 item 14)', () => {
  const ctx = useTestDatabase({ dataset: true })
  let close: (() => Promise<unknown>) | null = null
  afterAll(async () => {
    await close?.()
  })

  it('the default specialties are the documented ones, and an empty setting warms none', () => {
    expect(parseEnv({}).CARE_SELECT_WARM_SPECIALTIES).toEqual([FAMILY_MEDICINE, INTERNAL_MEDICINE, '208000000X'])
    expect(parseEnv({ CARE_SELECT_WARM_SPECIALTIES: '' }).CARE_SELECT_WARM_SPECIALTIES).toEqual([])
    expect(parseEnv({ CARE_SELECT_WARM_SPECIALTIES: ' 207Q00000X , ,2084P0800X' }).CARE_SELECT_WARM_SPECIALTIES).toEqual([
      FAMILY_MEDICINE,
      '2084P0800X',
    ])
  })

  it('a server with warmEngines holds the specialties before any search, and their first search builds nothing', async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    const { rows: present } = await pool.query<{ code: string }>(
      `SELECT DISTINCT primary_taxonomy_code AS code FROM providers WHERE primary_taxonomy_code = ANY($1) ORDER BY 1`,
      [parseEnv({}).CARE_SELECT_WARM_SPECIALTIES],
    )
    expect(present.map((r) => r.code)).toContain(FAMILY_MEDICINE)
    // nothing has searched on this pool: without the warm-up nothing is held
    expect(careSelectCandidates.memory(pool)).toBe(0)
    expect(heldSpecialtyIndex(pool, version, FAMILY_MEDICINE)).toBeNull()

    const app = await buildApp(testConfig({}, { OUTBOX_POLL_INTERVAL_MS: '0' }), { logger: false, database: ctx.db, warmEngines: true })
    close = () => app.close()
    await app.ready()
    const deadline = Date.now() + 240_000
    // heldSpecialtyIndex never starts a build, so only the warm-up can fill these
    while (present.some((r) => !heldSpecialtyIndex(pool, version, r.code)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 250))
    for (const { code } of present) expect(heldSpecialtyIndex(pool, version, code)?.size, code).toBeGreaterThan(0)
    expect(careSelectCandidates.memory(pool)).toBeGreaterThan(0)
    const warmed = heldSpecialtyIndex(pool, version, FAMILY_MEDICINE)!
    const buildsBefore = builds()
    expect(buildsBefore).toBeGreaterThanOrEqual(present.length)

    // the first search of family medicine, on the ZIP with the most of its clinicians
    const zip = (
      await pool.query<{ zip: string }>(
        `SELECT zip_code AS zip FROM providers WHERE primary_taxonomy_code = $1 AND zip_code IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
        [FAMILY_MEDICINE],
      )
    ).rows[0]!.zip
    const tenant = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const response = await request(app.server)
      .get('/api/care-select/rankings')
      .query({ zip_code: zip, omni_code: FAMILY_MEDICINE, omni_genre: 'SPECIALTY', radius_in_m: CARE_DEFAULT_RADIUS_M })
      .set('authorization', `Bearer ${token}`)
    expect(response.status, response.text).toBe(200)
    expect(builds()).toBe(buildsBefore)
    expect(heldSpecialtyIndex(pool, version, FAMILY_MEDICINE)).toBe(warmed)
  })

  it('skips what is held or absent, and stops at the provider bound and the memory budget', async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    // everything held now (the previous test's warm-up): nothing is built again
    const again = await warmCareSelect(pool, version, [FAMILY_MEDICINE, 'ZZZZ00000X'])
    expect(again.built).toEqual([])
    expect(again.skipped).toEqual([
      { taxonomy: FAMILY_MEDICINE, reason: 'held' },
      { taxonomy: 'ZZZZ00000X', reason: 'no providers' },
    ])

    careSelectCandidates.evict(pool)
    const family = Number(
      (await pool.query<{ n: string }>(`SELECT count(*) AS n FROM providers WHERE primary_taxonomy_code = $1`, [FAMILY_MEDICINE])).rows[0]!
        .n,
    )
    const previous = setCandidateIndexMaxProviders(family + 1)
    try {
      const bounded = await warmCareSelect(pool, version, [FAMILY_MEDICINE, INTERNAL_MEDICINE])
      expect(bounded.built).toEqual([FAMILY_MEDICINE])
      expect(bounded.skipped).toEqual([{ taxonomy: INTERNAL_MEDICINE, reason: 'provider bound' }])
    } finally {
      setCandidateIndexMaxProviders(previous)
    }

    careSelectCandidates.evict(pool)
    // a budget of one byte: the first index is still built when nothing else is held, then the warm-up stops
    setEngineMemoryBudget(1)
    try {
      const budgeted = await warmCareSelect(pool, version, [FAMILY_MEDICINE, 'ZZZZ00000X', INTERNAL_MEDICINE])
      expect(budgeted.built).toEqual([FAMILY_MEDICINE])
      expect(budgeted.skipped).toEqual([
        { taxonomy: 'ZZZZ00000X', reason: 'no providers' },
        { taxonomy: INTERNAL_MEDICINE, reason: 'memory budget' },
      ])
      expect(heldSpecialtyIndex(pool, version, INTERNAL_MEDICINE)).toBeNull()
    } finally {
      setEngineMemoryBudget(null)
    }
  })
})
