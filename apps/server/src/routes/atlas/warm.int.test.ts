import { afterAll, describe, expect, it } from 'vitest'
import { testConfig, useTestDatabase } from '../../../../../test/helpers.ts'
import { buildApp } from '../../app.ts'
import { dataVersion } from '../../lib/versioned-cache.ts'
import { currentClaimIndex } from '../../engines/atlas/claim-index.ts'
import { currentPatientIndex } from '../../engines/atlas/patient-index.ts'
import { novaEngine } from '../../engines/nova/index.ts'
import { heldZipNeighbours, regionCatalog } from '../../services/atlas/regions.ts'

describe('Atlas indexes and Nova data built before anyone asks (issue 33 item 14)', () => {
  const ctx = useTestDatabase({ dataset: true })
  let close: (() => Promise<unknown>) | null = null
  afterAll(async () => {
    await close?.()
  })

  it('a server with warmEngines builds the patient and claim indexes and Nova data of the data version without a request', async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    // nothing has asked for this pool's indexes: without the warm-up they stay unbuilt
    expect(currentPatientIndex.held(pool)).toBeNull()
    expect(novaEngine.memory(pool)).toBe(0)
    const app = await buildApp(testConfig({}, { OUTBOX_POLL_INTERVAL_MS: '0' }), { logger: false, database: ctx.db, warmEngines: true })
    close = () => app.close()
    await app.ready()
    const deadline = Date.now() + 140_000
    // held() never starts a build, so only the warm-up can fill these
    while (!currentClaimIndex.held(pool) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250))
    expect(currentClaimIndex.held(pool)?.version).toBe(version)
    expect(currentPatientIndex.held(pool)?.version).toBe(version)
    // Nova's data of the version too (services/nova/warm.ts); memory() never starts a build
    while (novaEngine.memory(pool) === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250))
    expect(novaEngine.memory(pool)).toBeGreaterThan(0)
    expect((await novaEngine.build(pool, version))?.version).toBe(version)
    // and every ZIP area's neighbours, after the indexes (services/atlas/regions.ts warmZipNeighbours)
    const zipAreas = (await regionCatalog(pool, 'ZIP_CODE_50KM', version)).size
    while (heldZipNeighbours(version) < zipAreas && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250))
    expect(heldZipNeighbours(version)).toBe(zipAreas)
  }, 150_000)
})
