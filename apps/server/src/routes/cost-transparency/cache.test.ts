import { describe, expect, it } from 'vitest'
import { VersionedLruCache } from './cache.ts'
import { costSharingFor, patientShare, percentileCont, type PricingReference } from './pricing.ts'

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
  const reference: PricingReference = {
    rules: [
      { payer_name: '', payer_kind: '', plan_name: '', coinsurance: 0.2, copay: 0 },
      { payer_name: '', payer_kind: '', plan_name: 'HMO', coinsurance: 0.1, copay: 0 },
      { payer_name: '', payer_kind: 'medicaid', plan_name: '', coinsurance: 0, copay: 4 },
      { payer_name: 'Aetna', payer_kind: '', plan_name: '', coinsurance: 0.3, copay: 10 },
    ],
    kinds: new Map([
      ['aetna', 'commercial'],
      ['molina healthcare', 'medicaid'],
    ]),
  }

  it('picks the most specific cost-sharing rule: payer name, then plan, then payer kind', () => {
    expect(costSharingFor(reference, 'AETNA', 'HMO')).toMatchObject({ payer_name: 'Aetna' })
    expect(costSharingFor(reference, 'Cigna Healthcare', 'hmo')).toMatchObject({ plan_name: 'HMO' })
    expect(costSharingFor(reference, 'Molina Healthcare', 'PPO')).toMatchObject({ payer_kind: 'medicaid' })
    expect(costSharingFor(reference, 'Unknown', 'PPO')).toMatchObject({ coinsurance: 0.2 })
  })

  it('splits a rate: patient = min(rate, copay + coinsurance × (rate − copay))', () => {
    expect(patientShare(100, { coinsurance: 0.2, copay: 0 })).toBe(20)
    expect(patientShare(100, { coinsurance: 0.3, copay: 10 })).toBe(37)
    expect(patientShare(3, { coinsurance: 0, copay: 4 })).toBe(3)
    expect(patientShare(33.333, { coinsurance: 0.2, copay: 0 })).toBe(6.67)
  })

  it('computes continuous percentiles as PostgreSQL percentile_cont does', () => {
    expect(percentileCont([10], 0.9)).toBe(10)
    expect(percentileCont([10, 20], 0.5)).toBe(15)
    expect(percentileCont([40, 10, 20, 30], 0.1)).toBeCloseTo(13)
    expect(percentileCont([40, 10, 20, 30], 0.9)).toBeCloseTo(37)
  })
})
