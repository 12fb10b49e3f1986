import { CARE_SCORE_CACHE_MAX_ENTRIES, CARE_SCORE_CACHE_MAX_MIB, CARE_SCORE_CACHE_TTL_MINUTES } from '@citrus/contracts'
import type pg from 'pg'
import { reportCacheLookups, reportEngineMemory } from '../../lib/engine-stats.js'
import { compareDataVersions, VersionedLruCache } from '../../lib/versioned-cache.js'
import { indexBytes, isAreaIndex, isHeldIndex, onSpecialtyEvicted, type SpecialtyIndex } from '../../engines/care-select/candidate-index.js'
import type { ScoredSearch } from './score.js'

/**
 * The result cache of scored Care Select searches (docs/decisions/0060): the scoring of a search (every candidate
 * within the radius, score.ts scoreAll) kept per normalised search and data version, so that a repeated search
 * (a shared link opened again, the results page re-fetching) and the referral letter (which re-runs the clinician's
 * search for the selected providers' scores) skip it. filter_npis is not part of the key: it narrows what is listed
 * after the scoring (score.ts narrowScored). With the scoring an entry keeps the answers written from it (their JSON
 * as sent, per filter_npis; docs/decisions/0063), so that a repeated search sends the same bytes again without the
 * details query or writing the answer. Access checks, validation and metering stay per request.
 */

/**
 * Bounds (contracts): entries, the bytes of columns they hold (scoredSearchBytes: a dense metro's search ~2.8 MiB,
 * a rural one a few KB; a 200-mile radius around a metro more), and how long one lives.
 */
export { CARE_SCORE_CACHE_MAX_ENTRIES }
export const CARE_SCORE_CACHE_MAX_BYTES = CARE_SCORE_CACHE_MAX_MIB * 2 ** 20
export const CARE_SCORE_CACHE_TTL_MS = CARE_SCORE_CACHE_TTL_MINUTES * 60 * 1000

/** The search as scored: the resolved inputs, codes and carriers sorted (resolveSearch sorts them). */
export interface ScoredSearchKey {
  zip: string
  omniCode: string
  insurers: readonly string[]
  cpt: readonly string[]
  icd10: readonly string[]
  radiusM: number
}

export function scoredSearchKey(search: ScoredSearchKey): string {
  const sorted = (list: readonly string[]) => [...list].sort().join(',')
  return JSON.stringify([search.zip, search.omniCode, sorted(search.insurers), sorted(search.cpt), sorted(search.icd10), search.radiusM])
}

/** How many answers (serialised, one per filter_npis) one scored search keeps at most; the least recently used go first. */
export const CARE_ANSWERS_PER_SEARCH = 8

/**
 * A kept answer: its JSON as sent (UTF-8), and the bytes it weighs in the cache once written. Compression is the
 * HTTP layer's (@fastify/compress, docs/decisions/0077).
 */
interface KeptAnswer {
  body: Promise<Buffer>
  bytes: number
}

/** An answer as sent: its bytes and where they came from. */
export interface SentAnswer {
  body: Buffer
  cached: 'answer' | 'scoring' | false
}

/** An entry: the scoring of a search and, once written, its answers (the JSON of each filter_npis asked for). */
interface Entry {
  scoring: Promise<ScoredSearch>
  /** scoredSearchBytes once scored */
  scoredBytes: number
  /** by filter_npis (sorted, de-duplicated, comma-joined; '' for none), most recently used last */
  answers: Map<string, KeptAnswer>
  answerBytes: number
}

export class ScoredSearchCache {
  private readonly entries: VersionedLruCache<Entry>
  private version: string | null = null
  /** the finished scorings of the entries (to find those of an evicted candidate index) */
  private readonly finished = new WeakMap<Entry, ScoredSearch>()
  /** answers from the cache (the scoring reused), and scorings run (misses and _bypass_cache) */
  hits = 0
  scorings = 0
  /** of the hits, those whose answer was kept too (answer(): the JSON sent again, nothing rebuilt) */
  answerHits = 0

  /**
   * @param isCurrent whether a kept scoring still points into the candidate index held now for its specialty
   *   (candidate-index.ts isHeldIndex): a hit that does not is a miss, and its entry is dropped, so that an evicted
   *   index is not kept alive by the cache nor built a second time beside it
   */
  constructor(
    maxEntries = CARE_SCORE_CACHE_MAX_ENTRIES,
    ttlMs = CARE_SCORE_CACHE_TTL_MS,
    now?: () => number,
    maxBytes = CARE_SCORE_CACHE_MAX_BYTES,
    private readonly isCurrent: (scored: ScoredSearch) => boolean = () => true,
    private readonly answersPerSearch = CARE_ANSWERS_PER_SEARCH,
  ) {
    this.entries = new VersionedLruCache(maxEntries, ttlMs, now, maxBytes)
  }

  get size(): number {
    return this.entries.size
  }

  /** the bytes held: scoredSearchBytes of every finished entry plus the answers kept with it */
  get bytes(): number {
    return this.entries.weight
  }

  /** Drops the entries scored on `index` (a candidate index just evicted), so that they do not keep it alive. */
  dropIndex(index: SpecialtyIndex): void {
    this.entries.deleteWhere((entry) => this.finished.get(entry)?.candidates.index === index)
  }

  /**
   * The scored search of `key` at data version `version`: from the cache unless `bypass`, else scored by `score`
   * (and kept, replacing any entry). Concurrent identical searches share one scoring (the entry is its promise);
   * a scoring that fails is not kept. Versions move forward only (compareDataVersions): a newer one drops every
   * entry of the older; a search that read an older version than the cache's is scored without reading or changing
   * the cache.
   */
  async scored(
    key: string,
    version: string,
    bypass: boolean,
    score: () => Promise<ScoredSearch>,
  ): Promise<{ scored: ScoredSearch; cached: boolean }> {
    const { scored, cached } = await this.entryOf(key, version, bypass, score)
    return { scored, cached }
  }

  /**
   * The answer (its JSON as sent) of `key` at `version` narrowed to `variant` (filter_npis, canonical): the one kept
   * with the entry's scoring when there is one (an answer hit), else written by `write` from the scoring (cached or
   * scored now, as `scored`) and kept with it, at most `answersPerSearch` per scoring. Its bytes count in the entry's
   * weight, so the byte bound holds columns and answers together. `bypass` scores and writes afresh (and replaces
   * the entry); an older version's request writes its own answer and keeps nothing. A write that fails is not kept.
   */
  async answer(
    key: string,
    version: string,
    bypass: boolean,
    variant: string,
    score: () => Promise<ScoredSearch>,
    write: (scored: ScoredSearch) => Promise<Buffer>,
  ): Promise<SentAnswer> {
    const { scored, cached, entry } = await this.entryOf(key, version, bypass, score)
    if (!entry) return { body: await write(scored), cached: false }
    const kept = entry.answers.get(variant)
    if (kept) {
      // most recently used last
      entry.answers.delete(variant)
      entry.answers.set(variant, kept)
      this.answerHits++
      return { body: await kept.body, cached: 'answer' }
    }
    const answer: KeptAnswer = { body: write(scored), bytes: 0 }
    entry.answers.set(variant, answer)
    while (entry.answers.size > this.answersPerSearch) {
      const [oldest, dropped] = entry.answers.entries().next().value as [string, KeptAnswer]
      entry.answers.delete(oldest)
      entry.answerBytes -= dropped.bytes
    }
    this.entries.reweigh(key, entry, entry.scoredBytes + entry.answerBytes)
    try {
      const body = await answer.body
      if (entry.answers.get(variant) === answer) {
        // the variant's text is held as a key beside the answer's bytes
        answer.bytes = body.byteLength + variant.length
        entry.answerBytes += answer.bytes
        this.entries.reweigh(key, entry, entry.scoredBytes + entry.answerBytes)
      }
      return { body, cached: cached ? 'scoring' : false }
    } catch (error) {
      if (entry.answers.get(variant) === answer) entry.answers.delete(variant)
      throw error
    }
  }

  /** scored() with the entry that holds the scoring (null for a request of an older data version). */
  private async entryOf(
    key: string,
    version: string,
    bypass: boolean,
    score: () => Promise<ScoredSearch>,
  ): Promise<{ scored: ScoredSearch; cached: boolean; entry: Entry | null }> {
    // a newer data version drops every entry of the old one (they hold the old candidate index's columns)
    if (this.version === null || compareDataVersions(version, this.version) > 0) {
      this.entries.clear()
      this.version = version
    } else if (version !== this.version) {
      this.scorings++
      return { scored: await score(), cached: false, entry: null }
    }
    if (!bypass) {
      const hit = this.entries.get(key, version)
      if (hit) {
        const scored = await hit.scoring
        if (this.isCurrent(scored)) {
          this.hits++
          return { scored, cached: true, entry: hit }
        }
        if (this.entries.get(key, version) === hit) this.entries.delete(key)
      }
    }
    this.scorings++
    const entry: Entry = { scoring: score(), scoredBytes: 0, answers: new Map(), answerBytes: 0 }
    this.entries.set(key, version, entry)
    try {
      const scored = await entry.scoring
      this.finished.set(entry, scored)
      entry.scoredBytes = scoredSearchBytes(scored)
      this.entries.reweigh(key, entry, entry.scoredBytes + entry.answerBytes)
      return { scored, cached: false, entry }
    } catch (error) {
      if (this.entries.get(key, version) === entry) this.entries.delete(key)
      throw error
    }
  }
}

const caches = new WeakMap<pg.Pool, ScoredSearchCache>()

/** The cache of one database (pool): one per server process, like the candidate index. */
export function scoredSearchCache(pool: pg.Pool): ScoredSearchCache {
  let cache = caches.get(pool)
  if (!cache) {
    // a scoring made from its search's own area (while the specialty built) holds that small index alone: it stays
    const current = (scored: ScoredSearch) => isHeldIndex(pool, scored.candidates.index) || isAreaIndex(scored.candidates.index)
    const created = new ScoredSearchCache(undefined, undefined, undefined, undefined, current)
    onSpecialtyEvicted(pool, (index) => created.dropIndex(index))
    caches.set(pool, (cache = created))
  }
  return cache
}
reportEngineMemory('care_select_scoring_cache', (pool) => scoredSearchCache(pool).bytes)
reportCacheLookups('care_select_scoring', (pool) => {
  const cache = scoredSearchCache(pool)
  return { hits: cache.hits, misses: cache.scorings }
})

/**
 * The bytes of a scored search's own columns (not the specialty's candidate index it points into, but the index of its
 * area when it was scored from one, which nothing else holds): what an entry holds.
 */
export function scoredSearchBytes(scored: ScoredSearch): number {
  let bytes = isAreaIndex(scored.candidates.index) ? indexBytes(scored.candidates.index) : 0
  const add = (array: ArrayBufferView | null) => {
    if (array) bytes += array.byteLength
  }
  const { candidates } = scored
  for (const array of [candidates.members, candidates.exact, scored.inNetwork, scored.distanceM, scored.distance]) add(array)
  for (const array of [scored.quality, scored.cost, scored.final, scored.relevantVolume, scored.pricePeersMin, scored.listed]) add(array)
  for (const col of [...scored.givenCols, ...scored.topicalCols]) add(col.counts)
  for (const ranks of scored.codeRanks) add(ranks)
  for (const price of scored.prices)
    for (const array of [price.entryOf, price.row, price.rate, price.negotiatedAff, price.patientAff]) add(array)
  return bytes + scored.rankedFacilities.length * 80
}
