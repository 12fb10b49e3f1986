import { afterAll, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { currentClaimIndex } from '../engines/atlas/claim-index.ts'
import { currentPatientIndex } from '../engines/atlas/patient-index.ts'
import { engineBudgetStats, setEngineMemoryBudget } from './engine-budget.ts'
import { dataVersion } from './versioned-cache.ts'

describe('ENGINE_MEMORY_BUDGET_MB: the Atlas indexes under one budget', () => {
  const ctx = useTestDatabase({ dataset: true })
  afterAll(() => setEngineMemoryBudget(null))

  it('drops the least recently used index to fit, answers null (SQL) meanwhile, and builds it again on use', async () => {
    const pool = ctx.db.pool
    const version = await dataVersion(pool)
    const people = (await currentPatientIndex(pool, version, true))!
    expect(people.bytes).toBeGreaterThan(0)
    // room for the patient index alone: the claim index, built next, pushes it out
    setEngineMemoryBudget(people.bytes + 1)
    const before = engineBudgetStats().evictions.get('atlas_patient_index') ?? 0
    const claims = (await currentClaimIndex(pool, version, true))!
    expect(currentClaimIndex.held(pool)).toBe(claims)
    expect(currentPatientIndex.held(pool)).toBeNull()
    expect(engineBudgetStats().evictions.get('atlas_patient_index')).toBe(before + 1)
    // the next use starts a build and answers null meanwhile (the routes count with SQL then)
    expect(await currentPatientIndex(pool, version)).toBeNull()
    const rebuilt = (await currentPatientIndex(pool, version, true))!
    expect(rebuilt).not.toBe(people)
    expect(rebuilt.size).toBe(people.size)
    expect(rebuilt.bytes).toBe(people.bytes)
    // now the claim index was the least recently used
    expect(currentClaimIndex.held(pool)).toBeNull()
    expect(currentPatientIndex.held(pool)).toBe(rebuilt)
  })
})
