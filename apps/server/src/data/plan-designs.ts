import {
  COMMERCIAL_PLANS,
  MEDICAID_PLAN,
  MEDICARE_ADVANTAGE_PLAN,
  MEDICARE_FFS_PLAN,
  TRICARE_PLAN,
  type PlanDesign,
} from '@citrus/data-kit'
import type pg from 'pg'

/**
 * The plan designs the synthetic claims were generated with (data-kit realism.ts), as plan_cost_sharing rows
 * (docs/decisions/0048). Price Check prices a facility procedure, which the generator bills as an outpatient
 * encounter: the plan's specialist/outpatient copay, then the deductible, then the coinsurance.
 *
 * - Commercial and Blue plans (insurers.kind commercial, blues): the generator draws one of its commercial
 *   designs for every commercial member, whatever the insurer, with these enrollment weights;
 * - Original Medicare (kind medicare): the Part B deductible and 20 % coinsurance;
 * - Medicare Advantage (any insurer's plan named "Medicare Advantage");
 * - Medicaid (kind medicaid) and TRICARE (kind military).
 */
export interface PlanCostSharingRow {
  payer_name: string
  payer_kind: string
  plan_name: string
  plan_design: string
  coinsurance: number
  copay: number
  deductible: number
  weight: number
}

const dollars = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/** A design's label, e.g. "PPO, $500 deductible, 20% coinsurance". */
export function planDesignLabel(plan: PlanDesign): string {
  const kind = plan.kind === 'commercial_hdhp' ? 'HDHP' : plan.kind === 'commercial_ppo' ? 'PPO' : plan.kind
  return `${kind}, $${dollars.format(plan.deductible)} deductible, ${Math.round(plan.coinsurance * 100)}% coinsurance`
}

const row = (payer_kind: string, plan_name: string, plan_design: string, plan: PlanDesign, weight: number): PlanCostSharingRow => ({
  payer_name: '',
  payer_kind,
  plan_name,
  plan_design,
  coinsurance: plan.coinsurance,
  copay: plan.specialist_copay ?? 0,
  deductible: plan.deductible,
  weight,
})

export function syntheticPlanCostSharing(): PlanCostSharingRow[] {
  const total = COMMERCIAL_PLANS.reduce((sum, [, weight]) => sum + weight, 0)
  const commercial = (kind: string) =>
    COMMERCIAL_PLANS.map(([plan, weight]) => row(kind, '', planDesignLabel(plan), plan, Math.round((weight / total) * 10_000) / 10_000))
  return [
    ...commercial('commercial'),
    ...commercial('blues'),
    row('medicare', '', 'Original Medicare (Part B)', MEDICARE_FFS_PLAN, 1),
    row('', 'Medicare Advantage', 'Medicare Advantage', MEDICARE_ADVANTAGE_PLAN, 1),
    row('medicaid', '', 'Medicaid', MEDICAID_PLAN, 1),
    row('military', '', 'TRICARE', TRICARE_PLAN, 1),
  ]
}

/**
 * Replaces the seed's plan_cost_sharing rows (source 'synthetic') in one transaction; an operator's row
 * with the same key is kept (ON CONFLICT DO NOTHING), and the migration's defaults are not touched.
 */
export async function loadPlanCostSharing(client: pg.ClientBase): Promise<number> {
  const rows = syntheticPlanCostSharing()
  await client.query('BEGIN')
  try {
    await client.query(`DELETE FROM plan_cost_sharing WHERE source = 'synthetic'`)
    const { rowCount } = await client.query(
      `INSERT INTO plan_cost_sharing (payer_name, payer_kind, plan_name, plan_design, coinsurance, copay, deductible, weight, source)
       SELECT payer_name, payer_kind, plan_name, plan_design, coinsurance, copay, deductible, weight, 'synthetic'
       FROM jsonb_to_recordset($1::jsonb) AS r(payer_name text, payer_kind text, plan_name text, plan_design text,
         coinsurance numeric, copay numeric, deductible numeric, weight numeric)
       ON CONFLICT (payer_name, payer_kind, plan_name, plan_design) DO NOTHING`,
      [JSON.stringify(rows)],
    )
    await client.query('COMMIT')
    return rowCount ?? 0
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}
