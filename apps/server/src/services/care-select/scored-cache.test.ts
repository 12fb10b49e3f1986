import { describe, expect, it } from 'vitest'
import type { ScoredSearch } from './score.ts'
import { ScoredSearchCache, scoredSearchKey } from './scored-cache.ts'

/** A scored search with `bytes` of columns (scoredSearchBytes counts them). */
const columns = (bytes: number) =>
  ({
    candidates: { members: new Int32Array(bytes / 4), exact: null },
    inNetwork: null,
    givenCols: [],
    topicalCols: [],
    codeRanks: [],
    prices: [],
    rankedFacilities: [],
  }) as unknown as ScoredSearch
const fake = (n: number) => ({ ...columns(0), n }) as unknown as ScoredSearch

describe('ScoredSearchCache', () => {
  it('keys a search by its sorted carriers and codes, not their order', () => {
    const a = { zip: '10001', omniCode: '207Q00000X', insurers: ['B', 'A'], cpt: ['99214', '99213'], icd10: ['I10', 'E11'], radiusM: 5 }
    expect(scoredSearchKey(a)).toBe(scoredSearchKey({ ...a, insurers: ['A', 'B'], cpt: ['99213', '99214'], icd10: ['E11', 'I10'] }))
    expect(scoredSearchKey(a)).not.toBe(scoredSearchKey({ ...a, radiusM: 6 }))
    expect(scoredSearchKey(a)).not.toBe(scoredSearchKey({ ...a, cpt: ['99213'] }))
    expect(scoredSearchKey(a)).not.toBe(scoredSearchKey({ ...a, zip: '10002' }))
  })

  it('answers a hit, scores on a miss, a bypass or a new version, and drops the old version', async () => {
    const cache = new ScoredSearchCache(2, 1000)
    let runs = 0
    const score = async () => fake(++runs)
    expect(await cache.scored('k', 'v1', false, score)).toEqual({ scored: fake(1), cached: false })
    expect(await cache.scored('k', 'v1', false, score)).toEqual({ scored: fake(1), cached: true })
    expect(await cache.scored('k', 'v1', true, score)).toEqual({ scored: fake(2), cached: false })
    expect(await cache.scored('k', 'v1', false, score)).toEqual({ scored: fake(2), cached: true })
    await cache.scored('other', 'v1', false, score)
    expect(cache.size).toBe(2)
    expect(await cache.scored('k', 'v2', false, score)).toEqual({ scored: fake(4), cached: false })
    expect(cache.size).toBe(1)
    expect([cache.hits, cache.scorings]).toEqual([2, 4])
  })

  it('moves forward only: a search of an older data version is scored without reading or clearing the cache', async () => {
    const cache = new ScoredSearchCache(4, 1000)
    let runs = 0
    const score = async () => fake(++runs)
    expect(await cache.scored('k', '9:9:2026-11-26 04:00', false, score)).toEqual({ scored: fake(1), cached: false })
    // 10 loads are newer than 9 (the count compared as a number, not as text)
    expect(await cache.scored('k', '10:10:2026-11-26 04:10', false, score)).toEqual({ scored: fake(2), cached: false })
    expect(cache.size).toBe(1)
    // a slower request that read the version before: scored for itself, the newer entry kept
    expect(await cache.scored('k', '9:9:2026-11-26 04:00', false, score)).toEqual({ scored: fake(3), cached: false })
    expect(await cache.scored('other', '9:9:2026-11-26 04:00', false, score)).toEqual({ scored: fake(4), cached: false })
    expect(cache.size).toBe(1)
    expect(await cache.scored('k', '10:10:2026-11-26 04:10', false, score)).toEqual({ scored: fake(2), cached: true })
    expect([cache.hits, cache.scorings]).toEqual([1, 4])
  })

  it('treats a hit whose scoring is no longer current (its candidate index evicted) as a miss and drops it', async () => {
    let current = true
    const cache = new ScoredSearchCache(4, 1000, undefined, undefined, () => current)
    let runs = 0
    const score = async () => fake(++runs)
    await cache.scored('k', 'v', false, score)
    expect(await cache.scored('k', 'v', false, score)).toEqual({ scored: fake(1), cached: true })
    current = false
    expect(await cache.scored('k', 'v', false, score)).toEqual({ scored: fake(2), cached: false })
    expect(cache.size).toBe(1)
    current = true
    expect(await cache.scored('k', 'v', false, score)).toEqual({ scored: fake(2), cached: true })
  })

  it('shares one scoring between concurrent identical searches and keeps no failed one', async () => {
    const cache = new ScoredSearchCache(4, 1000)
    let runs = 0
    let release: () => void = () => undefined
    const slow = () =>
      new Promise<ScoredSearch>((resolve) => {
        runs++
        release = () => resolve(fake(runs))
      })
    const both = Promise.all([cache.scored('k', 'v', false, slow), cache.scored('k', 'v', false, slow)])
    release()
    expect((await both).map((r) => r.scored)).toEqual([fake(1), fake(1)])
    expect(runs).toBe(1)
    await expect(cache.scored('bad', 'v', false, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await cache.scored('bad', 'v', false, async () => fake(9))).toEqual({ scored: fake(9), cached: false })
  })

  it('bounds its entries and their age', async () => {
    let now = 0
    const cache = new ScoredSearchCache(2, 100, () => now)
    for (const key of ['a', 'b', 'c']) await cache.scored(key, 'v', false, async () => fake(1))
    expect(cache.size).toBe(2)
    expect((await cache.scored('a', 'v', false, async () => fake(2))).cached).toBe(false)
    now = 150
    expect((await cache.scored('c', 'v', false, async () => fake(3))).cached).toBe(false)
  })
})

describe('ScoredSearchCache byte bound', () => {
  it('holds at most maxBytes of columns: the least recently used go first, one too large is not kept', async () => {
    const cache = new ScoredSearchCache(10, 1000, undefined, 1000)
    await cache.scored('a', 'v', false, async () => columns(400))
    await cache.scored('b', 'v', false, async () => columns(400))
    expect(cache.bytes).toBe(800)
    expect((await cache.scored('a', 'v', false, async () => columns(4))).cached).toBe(true)
    await cache.scored('c', 'v', false, async () => columns(400))
    // b was the least recently used
    expect(cache.size).toBe(2)
    expect(cache.bytes).toBe(800)
    expect((await cache.scored('a', 'v', false, async () => columns(4))).cached).toBe(true)
    expect((await cache.scored('b', 'v', false, async () => columns(400))).cached).toBe(false)
    const huge = await cache.scored('huge', 'v', false, async () => columns(2000))
    expect(huge.cached).toBe(false)
    expect(cache.size).toBe(0)
    expect(cache.bytes).toBe(0)
  })
})

describe('ScoredSearchCache answers (docs/decisions/0063)', () => {
  const bytes = (text: string) => Buffer.from(text)

  it('keeps the answer written per filter_npis with its scoring: a repeat sends it again, a new filter writes once', async () => {
    const cache = new ScoredSearchCache(4, 1000)
    let scorings = 0
    const writes: string[] = []
    const score = async () => fake(++scorings)
    const write = (variant: string) => async (scored: ScoredSearch) => {
      writes.push(variant)
      return bytes(`${variant}@${scored.n}`)
    }
    const answer = (variant: string, bypass = false) => cache.answer('k', 'v', bypass, variant, score, write(variant))
    expect(await answer('')).toEqual({ body: bytes('@1'), cached: false })
    expect(await answer('')).toEqual({ body: bytes('@1'), cached: 'answer' })
    // another selection of the same search: the scoring reused, its answer written once, then kept
    expect(await answer('1,2')).toEqual({ body: bytes('1,2@1'), cached: 'scoring' })
    expect(await answer('1,2')).toEqual({ body: bytes('1,2@1'), cached: 'answer' })
    expect(writes).toEqual(['', '1,2'])
    expect([cache.hits, cache.answerHits, cache.scorings]).toEqual([3, 2, 1])
    // _bypass_cache scores and writes afresh and replaces the entry with its answers
    expect(await answer('', true)).toEqual({ body: bytes('@2'), cached: false })
    expect(await answer('1,2')).toEqual({ body: bytes('1,2@2'), cached: 'scoring' })
    expect(await answer('')).toEqual({ body: bytes('@2'), cached: 'answer' })
    // the scoring alone (the referral letter) is the same entry
    expect(await cache.scored('k', 'v', false, score)).toEqual({ scored: fake(2), cached: true })
    // a new data version drops the old entry and its answers
    expect(await cache.answer('k', 'v2', false, '', score, write(''))).toEqual({ body: bytes('@3'), cached: false })
  })

  it('counts the answers in the entry weight, keeps at most answersPerSearch, least recently used first', async () => {
    const cache = new ScoredSearchCache(4, 1000, undefined, 10_000, undefined, 2)
    const score = async () => columns(400)
    const write = (size: number) => async () => Buffer.alloc(size)
    await cache.answer('k', 'v', false, '', score, write(100))
    expect(cache.bytes).toBe(400 + 100)
    await cache.answer('k', 'v', false, 'a', score, write(50))
    expect(cache.bytes).toBe(400 + 100 + 50 + 1)
    // '' is the most recently used: 'a' goes when a third answer comes
    expect((await cache.answer('k', 'v', false, '', score, write(999))).cached).toBe('answer')
    await cache.answer('k', 'v', false, 'bb', score, write(20))
    expect(cache.bytes).toBe(400 + 100 + 20 + 2)
    expect((await cache.answer('k', 'v', false, 'a', score, write(50))).cached).toBe('scoring')
    // now '' was the least recently used
    expect(cache.bytes).toBe(400 + 20 + 2 + 50 + 1)
    expect((await cache.answer('k', 'v', false, '', score, write(100))).cached).toBe('scoring')
  })

  it('drops an entry whose columns and answers exceed the byte bound, keeps no failed write, shares a pending one', async () => {
    const cache = new ScoredSearchCache(4, 1000, undefined, 1000)
    await cache.answer(
      'k',
      'v',
      false,
      '',
      async () => columns(400),
      async () => Buffer.alloc(700),
    )
    expect(cache.size).toBe(0)
    expect(cache.bytes).toBe(0)
    await expect(
      cache.answer(
        'k',
        'v',
        false,
        '',
        async () => columns(400),
        () => Promise.reject(new Error('boom')),
      ),
    ).rejects.toThrow('boom')
    expect(cache.bytes).toBe(400)
    let writes = 0
    let release: () => void = () => undefined
    const slow = () =>
      new Promise<Buffer>((resolve) => {
        writes++
        release = () => resolve(Buffer.from('x'))
      })
    const first = cache.answer('k', 'v', false, '', async () => columns(400), slow)
    // the second finds the first's pending answer once the scoring is known to be cached
    await new Promise((resolve) => setTimeout(resolve, 0))
    const second = cache.answer('k', 'v', false, '', async () => columns(400), slow)
    await new Promise((resolve) => setTimeout(resolve, 0))
    release()
    expect((await Promise.all([first, second])).map((r) => [r.body.toString(), r.cached])).toEqual([
      ['x', 'scoring'],
      ['x', 'answer'],
    ])
    expect(writes).toBe(1)
    expect(cache.bytes).toBe(401)
  })

  it('writes an answer for a request of an older data version without keeping it', async () => {
    const cache = new ScoredSearchCache(4, 1000)
    await cache.answer(
      'k',
      '2:2:b',
      false,
      '',
      async () => fake(1),
      async () => bytes('new'),
    )
    expect(
      await cache.answer(
        'k',
        '1:1:a',
        false,
        '',
        async () => fake(2),
        async () => bytes('old'),
      ),
    ).toEqual({
      body: bytes('old'),
      cached: false,
    })
    expect(
      (
        await cache.answer(
          'k',
          '2:2:b',
          false,
          '',
          async () => fake(3),
          async () => bytes('?'),
        )
      ).body.toString(),
    ).toBe('new')
  })
})
