import { CODE_AGE_LIMITS, SCALES } from '@citrus/data-kit'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { calibrationReport, calibrationTargets, formatCalibrationReport, judge, type CalibrationTarget } from './calibration.ts'

const target = (kind: CalibrationTarget['kind'], value: number, bound?: CalibrationTarget['bound']): CalibrationTarget => ({
  key: 'x',
  area: 'test',
  label: 'x',
  kind,
  target: value,
  ...(bound ? { bound } : {}),
  unit: '%',
  source: 'test',
  sql: 'SELECT 1',
})

describe('calibration judging', () => {
  it('documents every target in seed/CALIBRATION.md', () => {
    const doc = readFileSync(new URL('../../../../seed/CALIBRATION.md', import.meta.url), 'utf8')
    for (const t of calibrationTargets(SCALES.demo)) expect(doc.includes(t.key), t.key).toBe(true)
  })

  it('fails a share outside ±10 % and a rate outside ±20 % when the sample is large enough', () => {
    expect(judge(target('share', 0.4), 0.43, 10_000).status).toBe('pass')
    expect(judge(target('share', 0.4), 0.45, 10_000).status).toBe('fail')
    expect(judge(target('share', 0.4), 0.35, 10_000).status).toBe('fail')
    expect(judge(target('rate', 43), 50, 5_000).status).toBe('pass')
    expect(judge(target('rate', 43), 53, 5_000).status).toBe('fail')
    // too few events to tell: reported, not judged
    expect(judge(target('rate', 43), 53, 20).status).toBe('small sample')
    expect(judge(target('share', 0.02), 0.03, 300).status).toBe('small sample')
  })

  it('fails a rule that misses its bound, however small the sample', () => {
    expect(judge(target('rule', 0, 'eq'), 1, 1).status).toBe('fail')
    expect(judge(target('rule', 0, 'eq'), 0, 1).status).toBe('pass')
    expect(judge(target('rule', 0.05, 'max'), 0.06, 1).status).toBe('fail')
    expect(judge(target('rule', 2, 'min'), 1.9, 1).status).toBe('fail')
    expect(judge(target('rule', 2, 'min'), null, 10).status).toBe('fail')
  })
})

describe('calibration report (ci scale) on the test database', () => {
  const ctx = useTestDatabase({ dataset: true })
  const measure = async (key: string) => {
    const t = calibrationTargets(SCALES.ci).find((x) => x.key === key)!
    const { rows } = await ctx.db.pool.query<{ value: number | string | null }>(t.sql)
    return Number(rows[0]?.value ?? NaN)
  }

  it('measures every target of seed/CALIBRATION.md within tolerance', async () => {
    const report = await calibrationReport(ctx.db.pool, 'ci')
    expect(report.results.length).toBeGreaterThan(50)
    const failed = report.results.filter((r) => r.status === 'fail')
    expect(failed, formatCalibrationReport(report)).toEqual([])
    // most figures are judged at ci scale; the rest need the demo scale's sample
    expect(report.results.filter((r) => r.status === 'pass').length).toBeGreaterThan(report.results.length * 0.75)
    for (const r of report.results) expect(r.source.length, r.key).toBeGreaterThan(3)
  })

  it('has no claim or fill dated before the patient was born', async () => {
    expect(await measure('coding.before_birth')).toBe(0)
    // the check sees a violation when there is one
    const { rows } = await ctx.db.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM claims c JOIN patients p ON p.id = c.patient_id WHERE EXTRACT(YEAR FROM c.service_date)::int < p.birth_year + 1`,
    )
    expect(Number(rows[0]!.n)).toBeGreaterThan(0)
  })

  it('bills no age-specific code outside its age range (no 99396 on a child, no wellness visit before 65)', async () => {
    expect(await measure('coding.age_codes')).toBe(0)
    expect(CODE_AGE_LIMITS['99396']).toEqual([40, 64])
    const { rows } = await ctx.db.pool.query<{ code: string; lo: number; hi: number }>(
      `SELECT cp.procedure_code AS code, min(EXTRACT(YEAR FROM c.service_date)::int - p.birth_year) AS lo, max(EXTRACT(YEAR FROM c.service_date)::int - p.birth_year) AS hi
       FROM claim_procedures cp JOIN claims c ON c.id = cp.claim_id JOIN patients p ON p.id = c.patient_id
       WHERE cp.procedure_code IN ('99396', '99394', '99391', 'G0439') GROUP BY 1`,
    )
    expect(rows.map((r) => r.code).sort()).toEqual(['99391', '99394', '99396', 'G0439'])
    for (const r of rows) {
      const [lo, hi] = CODE_AGE_LIMITS[r.code]!
      expect(r.lo, r.code).toBeGreaterThanOrEqual(lo)
      expect(r.hi, r.code).toBeLessThanOrEqual(hi)
    }
  })

  it('has every fill written by a clinician who may prescribe, at an age the drug is labelled for', async () => {
    expect(await measure('rx.prescriber_scope')).toBe(0)
    expect(await measure('rx.min_age')).toBe(0)
    const { rows } = await ctx.db.pool.query<{ kind: string }>(
      `SELECT DISTINCT pr.provider_kind AS kind FROM pharmacy_claims r JOIN providers pr ON pr.npi = r.prescriber_npi`,
    )
    expect(rows.map((r) => r.kind).sort()).toEqual(expect.arrayContaining(['nurse_practitioner', 'physician']))
  })

  it('places every facility and clinician inside its own county polygon', async () => {
    expect(await measure('geo.points_outside_county')).toBe(0)
    expect(await measure('geo.facilities_outside_state')).toBe(0)
    const { rows } = await ctx.db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM facilities WHERE source = 'synthetic' AND county_fips IS NOT NULL`)
    expect(Number(rows[0]!.n)).toBeGreaterThan(SCALES.ci.facility_fraction * 50_000 * 0.9)
  })

  it('keeps prices consistent: $0 preventive care, no inpatient rows at surgery centres, percentages on percent-of-charges rows', async () => {
    expect(await measure('prices.preventive_free')).toBe(0)
    expect(await measure('prices.asc_inpatient')).toBe(0)
    expect(await measure('prices.percent_rows')).toBe(0)
    expect(await measure('prices.antivenom_floor')).toBe(0)
    expect(await measure('rx.antivenom_once')).toBe(0)
    const { rows } = await ctx.db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM facility_prices WHERE negotiated_percentage IS NOT NULL`)
    expect(Number(rows[0]!.n)).toBeGreaterThan(0)
  })
})
