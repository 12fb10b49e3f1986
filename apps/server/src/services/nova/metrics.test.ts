import { describe, expect, it } from 'vitest'
import {
  badgesFor,
  derive,
  emptyCounts,
  opportunityScore,
  round,
  sortRows,
  usageGapRatio,
  usageGapScore,
  type NovaCounts,
} from './metrics.ts'
import { colorOf, legendOf, payerMix, regionOpportunityScore } from './service.ts'

const counts = (over: Partial<NovaCounts>): NovaCounts => ({ ...emptyCounts(), ...over })

/*
 * A fixture where every answer is worked out by hand (docs/decisions/0038):
 * a hospital with 20 envenomations in five years (4 in the latest), 12 treated with CroFab (48 vials), 3 with
 * Anavip (30 vials), 5 untreated; it bought 40 CroFab vials and 20 Anavip vials.
 */
const hospital = counts({
  cases_5y: 20,
  cases_1y: 4,
  initials_5y: 19,
  initials_1y: 4,
  crofab_patients_5y: 12,
  crofab_patients_1y: 3,
  anavip_patients_5y: 3,
  anavip_patients_1y: 1,
  crofab_used_5y: 48,
  crofab_used_1y: 12,
  anavip_used_5y: 30,
  anavip_used_1y: 10,
  crofab_bought_5y: 40,
  crofab_bought_1y: 8,
  anavip_bought_5y: 20,
  anavip_bought_1y: 0,
})

describe('Nova metrics by hand', () => {
  it('derives shares, gaps, per-usage and the opportunity score', () => {
    const d = derive(hospital)
    expect(d.crofab_patient_share_5y).toBe(0.8) // 12 / 15
    expect(d.anavip_patient_share_5y).toBe(0.2)
    expect(d.crofab_patient_share_1yr).toBe(0.75) // 3 / 4
    expect(d.antivenom_units_used_5y).toBe(78)
    expect(d.crofab_usage_gap_ratio).toBe(0.2) // (48 - 40) / 40
    expect(d.crofab_usage_buying_gap).toBe(2)
    expect(d.antivenom_usage_gap_ratio).toBe(0.3) // (78 - 60) / 60
    expect(d.antivenom_usage_buying_gap).toBe(3)
    expect(d.snake_envenomination_initials_per_usage).toBe(0.244) // 19 / 78
    // d = 20 / 25 = 0.8; h = 1 - 40 / 78 = 0.48718; 100 × 0.8 × (0.5 + 0.5 × 0.48718) = 59.487 → 59.5
    expect(d.serb_crofab_opportunity_score).toBe(59.5)
  })

  it('opportunity edge cases: no cases is 0, no purchases is the whole demand, buying all it uses halves it', () => {
    expect(opportunityScore(counts({ cases_5y: 0, crofab_bought_5y: 100 }))).toBe(0)
    expect(opportunityScore(counts({ cases_5y: 0 }))).toBe(0)
    expect(opportunityScore(counts({ cases_5y: 25, crofab_used_5y: 100 }))).toBe(100)
    expect(opportunityScore(counts({ cases_5y: 50 }))).toBe(100) // cases but no antivenom used or bought
    expect(opportunityScore(counts({ cases_5y: 10, crofab_used_5y: 40, crofab_bought_5y: 40 }))).toBe(20) // 100 × 0.4 × 0.5
    expect(opportunityScore(counts({ cases_5y: 30, crofab_used_5y: 40, crofab_bought_5y: 400 }))).toBe(50)
    expect(opportunityScore(counts({ cases_5y: 5, anavip_used_5y: 50 }))).toBe(20) // all Anavip, no CroFab bought: 100 × 0.2
  })

  it('caps the usage-gap ratio at ±100 % and scores it -10..10; nothing used or bought has no gap', () => {
    expect(usageGapRatio(0, 0)).toBeNull()
    expect(usageGapScore(0, 0)).toBeNull()
    expect(usageGapRatio(10, 0)).toBe(1)
    expect(usageGapScore(10, 0)).toBe(10)
    expect(usageGapRatio(50, 10)).toBe(1) // +400 % capped
    expect(usageGapRatio(0, 10)).toBe(-1)
    expect(usageGapScore(0, 10)).toBe(-10)
    expect(usageGapScore(15, 10)).toBe(5)
    expect(usageGapScore(5, 10)).toBe(-5)
  })

  it('rounds half away from zero on the decimal value, as numeric does', () => {
    expect(round(59.05, 1)).toBe(59.1)
    expect(round(0.1 + 0.2, 4)).toBe(0.3)
    expect(round(-2.45, 1)).toBe(-2.5)
    expect(round(1.005, 2)).toBe(1.01)
  })

  it('gives the badges of the decision record in priority order', () => {
    const anavipHeavy = derive(
      counts({ cases_5y: 30, crofab_patients_5y: 2, anavip_patients_5y: 8, crofab_used_5y: 30, crofab_bought_5y: 6 }),
    )
    const badges = badgesFor(anavipHeavy, { kind: 'FACILITY', healthSystemName: 'Acme Health', topPrescriber: { rank: 3 } })
    expect(badges.map((b) => [b.type, b.code])).toEqual([
      ['RISK', 'COMPETITOR_DOMINANT'],
      ['WARNING', 'BUYING_BELOW_USAGE'],
      ['INFO', 'HPG_AFFILIATED'],
      ['OPPORTUNITY', 'HIGH_OPPORTUNITY'],
      ['TOP_PRESCRIBER', 'TOP_PRESCRIBER'],
    ])
    expect(badges[2]!.description).toBe('Buys through the Acme Health purchasing group')
    const loyal = derive(counts({ cases_5y: 10, crofab_patients_5y: 9, anavip_patients_5y: 1, crofab_used_5y: 40, crofab_bought_5y: 42 }))
    expect(badgesFor(loyal, { kind: 'FACILITY' }).map((b) => b.code)).toEqual(['CROFAB_LOYAL'])
    const overstocked = derive(counts({ cases_5y: 2, crofab_patients_5y: 1, crofab_used_5y: 4, crofab_bought_5y: 24 }))
    expect(badgesFor(overstocked, { kind: 'HEALTH_SYSTEM', facilityCount: 1 }).map((b) => b.code)).toEqual([
      'OVERSTOCKED',
      'HPG_AFFILIATED',
    ])
    // providers only ever carry TOP_PRESCRIBER
    expect(badgesFor(anavipHeavy, { kind: 'PROVIDER', topPrescriber: null })).toEqual([])
  })

  it('scores a region as the case-weighted mean of its facilities', () => {
    const a = counts({ cases_5y: 25 }) // 100
    const b = counts({ cases_5y: 5, crofab_used_5y: 10, crofab_bought_5y: 10 }) // 100 × 0.2 × 0.5 = 10
    const none = counts({ crofab_bought_5y: 12 }) // purchases only: weight 0
    expect(regionOpportunityScore([a, b, none])).toBe(85) // (25 × 100 + 5 × 10) / 30
    expect(regionOpportunityScore([none])).toBe(0)
  })

  it('sorts nulls last in both directions, ties by name', () => {
    const rows = [
      { id: '1', name: 'B', values: { crofab_patient_share_5y: 0.5 } },
      { id: '2', name: 'A', values: { crofab_patient_share_5y: null } },
      { id: '3', name: 'C', values: { crofab_patient_share_5y: 0.9 } },
      { id: '4', name: 'A', values: { crofab_patient_share_5y: 0.5 } },
    ]
    expect(sortRows([...rows], 'crofab_patient_share', 'DESC').map((r) => r.id)).toEqual(['3', '4', '1', '2'])
    expect(sortRows([...rows], 'crofab_patient_share', 'ASC').map((r) => r.id)).toEqual(['4', '1', '3', '2'])
  })

  it('rounds payer shares to one decimal, largest first', () => {
    const mix = payerMix(
      new Map([
        ['medicare', 1],
        ['commercial', 2],
        ['other', 0],
      ]),
    )
    expect(mix).toEqual([
      { payer_type: 'commercial', label: 'Commercial', count: 2, share: 66.7 },
      { payer_type: 'medicare', label: 'Medicare', count: 1, share: 33.3 },
      { payer_type: 'other', label: 'Other', count: 0, share: 0 },
    ])
    expect(payerMix(new Map())).toEqual([])
  })

  it('builds a five-class legend from the values and colours each value by its class', () => {
    const legend = legendOf([0, 10, null, 50], { code: 'x', title: 'X', value_format: 'INTEGER' })
    expect([legend.min_value, legend.max_value, legend.items.length]).toEqual([0, 50, 5])
    expect(legend.items[0]!.label).toBe('0 – 10')
    expect(colorOf(legend, 0)).toBe(legend.items[0]!.color)
    expect(colorOf(legend, 50)).toBe(legend.items[4]!.color)
    expect(colorOf(legend, null)).toBe('#e0e0e0')
    const flat = legendOf([3, 3], { code: 'x', title: 'X', value_format: 'PERCENTAGE' })
    expect(flat.items.length).toBe(1)
  })
})
