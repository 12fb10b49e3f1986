import { describe, expect, it } from 'vitest'
import { VersionedLruCache } from '../../lib/versioned-cache.ts'
import {
  bundleDeductibleExtra,
  costSharingFor,
  deductibleExtra,
  patientShare,
  percentileCont,
  ruleScore,
  type CostSharingRule,
  type PricingReference,
} from './pricing.ts'

describe('VersionedLruCache', () => {
  it('answers only entries of the current data version', () => {
    const cache = new VersionedLruCache<number>(10, 60_000)
    cache.set('a', 'v1', 1)
    expect(cache.get('a', 'v1')).toBe(1)
    expect(cache.get('a', 'v2')).toBeUndefined()
    // the stale entry is dropped
    expect(cache.get('a', 'v1')).toBeUndefined()
  })

  it('is bounded: the least recently used entry goes first', () => {
    const cache = new VersionedLruCache<number>(2, 60_000)
    cache.set('a', 'v', 1)
    cache.set('b', 'v', 2)
    expect(cache.get('a', 'v')).toBe(1) // a is now the most recent
    cache.set('c', 'v', 3)
    expect(cache.size).toBe(2)
    expect(cache.get('b', 'v')).toBeUndefined()
    expect(cache.get('a', 'v')).toBe(1)
    expect(cache.get('c', 'v')).toBe(3)
  })

  it('expires entries after their time to live', () => {
    let now = 1_000
    const cache = new VersionedLruCache<number>(10, 500, () => now)
    cache.set('a', 'v', 1)
    now += 499
    expect(cache.get('a', 'v')).toBe(1)
    now += 500
    expect(cache.get('a', 'v')).toBeUndefined()
  })
})

describe('Price Check arithmetic', () => {
  const row = (fields: Partial<CostSharingRule> & Pick<CostSharingRule, 'coinsurance'>): CostSharingRule => ({
    payer_name: '',
    payer_kind: '',
    plan_name: '',
    plan_design: '',
    copay: 0,
    deductible: 0,
    weight: 1,
    source: 'default',
    ...fields,
  })
  const reference: PricingReference = {
    rules: [
      row({ coinsurance: 0.2 }),
      row({ plan_name: 'HMO', coinsurance: 0.1 }),
      row({ payer_kind: 'medicaid', coinsurance: 0, copay: 4 }),
      row({ payer_name: 'Aetna', coinsurance: 0.3, copay: 10, source: 'operator' }),
    ],
    kinds: new Map([
      ['aetna', 'commercial'],
      ['molina healthcare', 'medicaid'],
      ['cigna healthcare', 'commercial'],
      ['anthem', 'blues'],
    ]),
  }

  it('picks the most specific cost-sharing rule: payer name, then plan, then payer kind', () => {
    expect(costSharingFor(reference, 'AETNA', 'HMO')).toMatchObject([{ payer_name: 'Aetna' }])
    expect(costSharingFor(reference, 'Cigna Healthcare', 'hmo')).toMatchObject([{ plan_name: 'HMO' }])
    expect(costSharingFor(reference, 'Molina Healthcare', 'PPO')).toMatchObject([{ payer_kind: 'medicaid' }])
    expect(costSharingFor(reference, 'Unknown', 'PPO')).toMatchObject([{ coinsurance: 0.2 }])
    expect(costSharingFor({ rules: [], kinds: new Map() }, 'Unknown', 'PPO')).toMatchObject([{ coinsurance: 0.2, deductible: 0 }])
  })

  it('prefers data rows over the defaults, operator rows over synthetic ones, and weighs plan designs', () => {
    const designs: PricingReference = {
      ...reference,
      rules: [
        ...reference.rules,
        row({ payer_kind: 'commercial', plan_design: 'PPO $500', coinsurance: 0.2, deductible: 500, weight: 0.75, source: 'synthetic' }),
        row({
          payer_kind: 'commercial',
          plan_design: 'HDHP $3,200',
          coinsurance: 0.2,
          deductible: 3200,
          weight: 0.25,
          source: 'synthetic',
        }),
        row({ payer_kind: 'blues', plan_design: 'PPO $500', coinsurance: 0.2, deductible: 500, weight: 2, source: 'synthetic' }),
        row({ payer_kind: 'blues', plan_design: 'PPO $500', plan_name: 'HMO', coinsurance: 0.05, source: 'operator' }),
      ],
    }
    // a synthetic kind row (score 16 + 2) beats the default plan-name row (score 4)
    expect(costSharingFor(designs, 'Cigna Healthcare', 'HMO').map((r) => [r.plan_design, r.weight])).toEqual([
      ['PPO $500', 0.75],
      ['HDHP $3,200', 0.25],
    ])
    // weights are normalised; the operator's more specific row wins
    expect(costSharingFor(designs, 'Anthem', 'PPO')).toMatchObject([{ plan_design: 'PPO $500', weight: 1 }])
    expect(costSharingFor(designs, 'Anthem', 'HMO')).toMatchObject([{ coinsurance: 0.05, source: 'operator' }])
    // the Aetna operator row still wins over the synthetic kind rows (payer name is more specific)
    expect(costSharingFor(designs, 'Aetna', 'PPO')).toMatchObject([{ payer_name: 'Aetna' }])
    expect(ruleScore({ payer_name: '', payer_kind: 'commercial', plan_name: '', source: 'synthetic' })).toBeGreaterThan(
      ruleScore({ payer_name: 'Aetna', payer_kind: '', plan_name: 'HMO', source: 'default' }),
    )
  })

  it('splits a rate: patient = min(rate, copay + coinsurance × (rate − copay))', () => {
    expect(patientShare(100, { coinsurance: 0.2, copay: 0 })).toBe(20)
    expect(patientShare(100, { coinsurance: 0.3, copay: 10 })).toBe(37)
    expect(patientShare(3, { coinsurance: 0, copay: 4 })).toBe(3)
    expect(patientShare(33.333, { coinsurance: 0.2, copay: 0 })).toBe(6.67)
  })

  it('adds the deductible not yet met: (1 − coinsurance) × min(deductible, rate − copay), once a bundle', () => {
    expect(deductibleExtra(100, { coinsurance: 0.2, copay: 0, deductible: 500 })).toBeCloseTo(80)
    expect(deductibleExtra(1000, { coinsurance: 0.2, copay: 0, deductible: 500 })).toBeCloseTo(400)
    expect(deductibleExtra(1000, { coinsurance: 0.2, copay: 40, deductible: 0 })).toBe(0)
    expect(deductibleExtra(30, { coinsurance: 0.2, copay: 40, deductible: 500 })).toBe(0)
    // two codes of $400 under a $500 deductible at 20 %: 0.8 × 500 = 400 once, not 0.8 × 400 twice
    const code = (extra: number) => ({ designs: new Map([['d', { extra, weight: 1, cap: 0.8 * 500 }]]) })
    expect(bundleDeductibleExtra([code(320), code(320)])).toBeCloseTo(400)
    expect(bundleDeductibleExtra([code(100), code(120)])).toBeCloseTo(220)
    // designs weigh in by their share
    const mixed = {
      designs: new Map([
        ['a', { extra: 0.5 * 320, weight: 0.5, cap: 400 }],
        ['b', { extra: 0.5 * 80, weight: 0.5, cap: 80 }],
      ]),
    }
    expect(bundleDeductibleExtra([mixed, mixed])).toBeCloseTo(200 + 40)
  })

  it('computes continuous percentiles as PostgreSQL percentile_cont does', () => {
    expect(percentileCont([10], 0.9)).toBe(10)
    expect(percentileCont([10, 20], 0.5)).toBe(15)
    expect(percentileCont([40, 10, 20, 30], 0.1)).toBeCloseTo(13)
    expect(percentileCont([40, 10, 20, 30], 0.9)).toBeCloseTo(37)
  })
})
