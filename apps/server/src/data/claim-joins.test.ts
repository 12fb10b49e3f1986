import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { claimJoins } from '../../../../test/claim-joins.ts'

const serverSrc = path.resolve(import.meta.dirname, '..')

/** The server's own source files (not its tests, not generated code). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(file)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : []
  })
}

describe('claimJoins', () => {
  it('tells a co-located join of claims with their lines from one on the claim id alone', () => {
    expect(claimJoins('FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id WHERE c.rendering_npi = $1')).toEqual([
      { text: 'JOIN claim_procedures … ON cp.claim_id = c.id', colocated: false },
    ])
    expect(claimJoins('FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id AND cp.patient_id = c.patient_id WHERE c.rendering_npi = $1')).toEqual([
      { text: 'JOIN claim_procedures … ON cp.claim_id = c.id AND cp.patient_id = c.patient_id', colocated: true },
    ])
    // the patient matched in WHERE, or a row's patient_id compared with itself or a value, is no co-located join
    expect(claimJoins('FROM claim_diagnoses d JOIN claims c ON c.id = d.claim_id\n WHERE c.patient_id = ANY($1)')[0]!.colocated).toBe(false)
    expect(claimJoins('JOIN claims c ON c.id = d.claim_id AND c.patient_id = c.patient_id')[0]!.colocated).toBe(false)
    expect(claimJoins('JOIN claims c ON c.id = d.claim_id AND c.patient_id = 5')[0]!.colocated).toBe(false)
    // a CTE of claim lines, quoted names, and a view's definition as PostgreSQL prints it
    expect(claimJoins('FROM claims c LEFT JOIN cd ON cd.claim_id = c.id')).toEqual([{ text: 'JOIN cd … ON cd.claim_id = c.id', colocated: false }])
    expect(claimJoins('FROM "claims" c JOIN "claim_diagnoses" d ON d."claim_id" = c."id" AND d."patient_id" = c."patient_id"\nGROUP BY 1')[0]!.colocated).toBe(true)
    expect(claimJoins('FROM (claim_diagnoses d\n     JOIN claims c ON (((c.id = d.claim_id) AND (c.patient_id = d.patient_id))))\n  GROUP BY')[0]!.colocated).toBe(true)
    // joins on anything else are not claim joins
    expect(claimJoins('FROM claims c JOIN patients p ON p.id = c.patient_id')).toEqual([])
  })

  it('finds every join by claim id in the server’s SQL matching the patient too (Citus runs it on each shard)', () => {
    const joins = sourceFiles(serverSrc).flatMap((file) => claimJoins(readFileSync(file, 'utf8')).map((join) => ({ file: path.relative(serverSrc, file), ...join })))
    // the calibration, the Atlas claim index, the cost page's provider figures and Nova's payer mix join claims
    expect(new Set(joins.map((j) => j.file))).toEqual(
      new Set(['data/calibration.ts', 'engines/atlas/claim-index.ts', 'services/pricing/provider.ts', 'services/nova/queries.ts']),
    )
    expect(joins.filter((j) => !j.colocated)).toEqual([])
  })
})
