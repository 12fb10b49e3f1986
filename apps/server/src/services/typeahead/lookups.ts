import type { CodeOption, ProcedureOption, SpecialtyOption } from '@citrus/contracts'
import type pg from 'pg'
import type { Row } from '../../db/kysely.js'
import { type SearchDomain, FUZZY_THRESHOLD, searchQueriesSql, searchScoreSql, searchTokens, synonymQueries } from './word-search.js'

/**
 * The look-ups behind /typeahead/* (docs/decisions/0009-data-platform.md, 0010-typeahead-word-search.md).
 * Ranking: an exact code first, then code prefixes (E119 finds E11.9, 2744 finds 27447), then text matches.
 * ICD-10-CM and CPT/HCPCS codes match words (word-search.ts: as typed, completed, abbreviations expanded,
 * typos corrected against the vocabulary); specialties and shoppable procedures, short names in small
 * tables, match by pg_trgm similarity. Ties go to the codes used most in the claims (planner statistics, no
 * scan), then to the reference starter set (the conditions and procedures the product features), then to
 * shorter texts.
 */

/** Letters and digits of a code-like query, upper case: 'e11.9' → 'E119'. */
export const compactCode = (query: string) => query.toUpperCase().replace(/[^A-Z0-9]/g, '')
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)
/** A LIKE/ILIKE pattern matching the text anywhere. */
const containsPattern = (query: string) => `%${escapeLike(query)}%`
/** The least string above every string that starts with a compact code ('E119' → 'E11:'), for a ~<~ bound. */
const codeUpperBound = (code: string) => (code === '' ? '' : code.slice(0, -1) + String.fromCharCode(code.charCodeAt(code.length - 1) + 1))
/** A LIKE/ILIKE pattern matching texts that start with the query. */
const startsPattern = (query: string) => `${escapeLike(query)}%`
/**
 * One or two characters (the clients start at 2) also match names that start with them, as word and trigram
 * matches need a whole word or three characters.
 */
const isWordQuery = (query: string) => query.trim().length >= 3

/** How often each value of a column occurs, from the planner's statistics (most common values; no scan). */
const frequencies = (table: string, column: string) => `freq AS (
  SELECT u.v AS value, u.f AS freq
  FROM pg_stats s, unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS u(v, f)
  WHERE s.schemaname = 'public' AND s.tablename = '${table}' AND s.attname = '${column}'
)`

/**
 * Runs a look-up on the trigram indexes. The planner prices pg_trgm's operators like any cheap operator, so
 * on a table of a few thousand codes it prefers a scan that computes the similarity of every row (60-80 ms
 * for the HCPCS long descriptions on PostgreSQL, 15-30 ms for the starter set on PGlite) over the trigram
 * index (a few ms).
 */
async function indexed<R extends pg.QueryResultRow>(pool: pg.Pool, name: string, sql: string, params: unknown[]): Promise<R[]> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    // Bitmap scans only: a plain index scan would walk a whole index and filter every row the same way.
    // No JIT: the penalty that disfavours the other scans inflates the cost past jit_above_cost.
    // A named statement with a generic plan: planned once per connection (custom plans cost 3-4 ms each,
    // mostly pg_trgm estimating its operators' selectivity on the column statistics). The parameters only
    // switch branches on and off (one-time filters) and feed index conditions, so the generic plan is the
    // same plan; code prefixes are therefore ranges (~>=~ / ~<~), which a parameter can bound, not LIKE.
    await client.query(
      'SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off; SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_generic_plan; ' +
        `SET LOCAL pg_trgm.similarity_threshold = ${FUZZY_THRESHOLD}`,
    )
    const { rows } = await client.query<R>({ name, text: sql, values: params })
    await client.query('COMMIT')
    return rows
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

interface Ranked {
  tier: number
  score: number
}

/** The parameters every code look-up shares ($1-$8 of its statement; codeCandidates and codeTier use them). */
function codeSearchParams(domain: SearchDomain, query: string, limit: number): unknown[] {
  const code = compactCode(query)
  const tokens = searchTokens(query)
  return [code, codeUpperBound(code), `${code}%`, isWordQuery(query), startsPattern(query), limit, tokens, synonymQueries(domain, tokens)]
}

/**
 * The candidate codes of a look-up, one indexed branch each (an OR of the branches is planned as a scan of
 * every code): the code range, the word search (the CTE `search` of word-search.ts) and, for one or two
 * typed characters, descriptions that start with them. `compact` is the table's code without punctuation.
 */
const codeCandidates = (
  table: string,
  compact: string,
) => `SELECT code FROM ${table} WHERE $1 <> '' AND ${compact} ~>=~ $1 AND ${compact} ~<~ $2
       UNION SELECT t.code FROM ${table} t, search s WHERE t.search_terms @@ s.any_q
       UNION (SELECT code FROM ${table} WHERE NOT $4 AND description ILIKE $5 LIMIT 200)`

/** 3 for the exact code, 2 for a code that starts with the typed one, 1 otherwise. */
const codeTier = (compact: string) => `CASE WHEN ${compact} = $1 THEN 3 WHEN $1 <> '' AND ${compact} LIKE $3 THEN 2 ELSE 1 END`

/**
 * Rank: exact code, code prefix, then words as typed before corrected ones; ties go to the codes used most
 * in the claims, the starter set, then the shorter (more general) code and description.
 */
export async function searchIcd10(pool: pg.Pool, query: string, limit: number): Promise<CodeOption[]> {
  return indexed<Pick<Row<'icd10_codes'>, 'code' | 'description' | 'long_description' | 'parent_code'>>(
    pool,
    'typeahead_icd10',
    `WITH ${frequencies('claim_diagnoses', 'icd10_code')},
     ${searchQueriesSql('icd10', { tokens: '$7', synonyms: '$8' })},
     candidates AS (${codeCandidates('icd10_codes', "replace(code, '.', '')")})
     SELECT i.code, i.description, i.long_description, i.parent_code
     FROM candidates c JOIN icd10_codes i ON i.code = c.code LEFT JOIN search s ON true LEFT JOIN freq ON freq.value = i.code
     ORDER BY ${codeTier("replace(i.code, '.', '')")} DESC, ${searchScoreSql('i.search_terms')} DESC, freq.freq DESC NULLS LAST,
              (i.source = 'starter') DESC, length(i.code), length(i.description), i.code COLLATE "C"
     LIMIT $6`,
    codeSearchParams('icd10', query, limit),
  )
}

/** CPT and HCPCS codes, ranked as ICD-10-CM codes are (searchIcd10); terminated codes are left out. */
export async function searchProcedureCodes(pool: pg.Pool, query: string, limit: number): Promise<CodeOption[]> {
  return indexed<Pick<Row<'procedure_codes'>, 'code' | 'description'> & { long_description: string; parent_code: string | null }>(
    pool,
    'typeahead_procedure_codes',
    `WITH ${frequencies('claim_procedures', 'procedure_code')},
     ${searchQueriesSql('procedure', { tokens: '$7', synonyms: '$8' })},
     candidates AS (${codeCandidates('procedure_codes', 'code')})
     SELECT p.code, p.description, coalesce(p.long_description, p.description) AS long_description, NULL::text AS parent_code
     FROM candidates c JOIN procedure_codes p ON p.code = c.code LEFT JOIN search s ON true LEFT JOIN freq ON freq.value = p.code
     WHERE p.termination_date IS NULL OR p.termination_date > current_date
     ORDER BY ${codeTier('p.code')} DESC, ${searchScoreSql('p.search_terms')} DESC, freq.freq DESC NULLS LAST,
              (p.source = 'starter') DESC, length(p.description), p.code COLLATE "C"
     LIMIT $6`,
    codeSearchParams('procedure', query, limit),
  )
}

/**
 * Price Check procedures: the shoppable procedures (a name and its codes), then single codes that are not
 * already a shoppable procedure of their own, so that any code can be priced. Shoppable names are short, in a
 * small table: they match by trigram word similarity ($9 the query, $10 a contains pattern).
 */
export async function searchProcedures(pool: pg.Pool, query: string, limit: number): Promise<ProcedureOption[]> {
  const rows = await indexed<Pick<Row<'shoppable_procedures'>, 'name' | 'cpt_codes' | 'description'> & Ranked & { kind: number }>(
    pool,
    'typeahead_procedures',
    `WITH ${searchQueriesSql('procedure', { tokens: '$7', synonyms: '$8' })},
     single AS (${codeCandidates('procedure_codes', 'code')})
     SELECT name, cpt_codes, description, tier, score, kind FROM (
       SELECT s.name, s.cpt_codes, s.description, 0 AS kind,
              CASE WHEN $1 = ANY (s.cpt_codes) THEN 3 WHEN $1 <> '' AND EXISTS (SELECT 1 FROM unnest(s.cpt_codes) c WHERE c LIKE $3) THEN 2 ELSE 1 END AS tier,
              greatest(word_similarity($9, s.name), word_similarity($9, s.description) * 0.8, CASE WHEN s.name ILIKE $10 THEN 1 ELSE 0 END) AS score
       FROM shoppable_procedures s
       WHERE ($4 AND ($9 <% s.name OR $9 <% s.description)) OR s.name ILIKE $10
          OR ($1 <> '' AND EXISTS (SELECT 1 FROM unnest(s.cpt_codes) c WHERE c LIKE $3))
       UNION ALL
       SELECT p.description, ARRAY[p.code], coalesce(p.long_description, p.description), 1,
              ${codeTier('p.code')}, ${searchScoreSql('p.search_terms')} / 3.0
       FROM single JOIN procedure_codes p ON p.code = single.code LEFT JOIN search s ON true
       WHERE (p.termination_date IS NULL OR p.termination_date > current_date)
         AND NOT EXISTS (SELECT 1 FROM shoppable_procedures s WHERE s.cpt_codes = ARRAY[p.code])
     ) x
     ORDER BY tier DESC, kind, score DESC, similarity($9, name) DESC, name COLLATE "C"
     LIMIT $6`,
    [...codeSearchParams('procedure', query, limit), query, containsPattern(query)],
  )
  return rows.map(({ name, cpt_codes, description }) => ({ name, cpt_codes, description }))
}

/**
 * Clinician specialties (NUCC taxonomies of individuals). Names are short, so the text score averages word
 * similarity with whole-name similarity ('famly medicine' prefers Family Medicine over Geriatric Medicine
 * (Family Medicine)). An empty query lists the most common specialties among the directory's providers first
 * (the planner's statistics: no scan of the providers table).
 */
export async function searchSpecialties(pool: pg.Pool, query: string, limit: number): Promise<SpecialtyOption[]> {
  const code = compactCode(query)
  const { rows } = await pool.query<Pick<Row<'specialties'>, 'code'> & { description: Row<'specialties'>['display_name']; score: number }>(
    `WITH ${frequencies('providers', 'primary_taxonomy_code')}
     SELECT sp.code, sp.display_name AS description,
            CASE WHEN $1 = '' THEN 0
                 WHEN sp.code = $2 THEN 1
                 WHEN $2 <> '' AND sp.code LIKE $3 THEN 0.9
                 ELSE least(0.89, greatest((word_similarity($1, sp.display_name) + similarity($1, sp.display_name)) / 2, CASE WHEN sp.display_name ILIKE $4 THEN 0.85 ELSE 0 END)) END AS score
     FROM specialties sp LEFT JOIN freq ON freq.value = sp.code
     WHERE coalesce(sp.section, 'Individual') = 'Individual'
       AND ($1 = '' OR ($2 <> '' AND sp.code LIKE $3) OR $1 <% sp.display_name OR sp.display_name ILIKE $4)
     ORDER BY score DESC, similarity($1, sp.display_name) DESC, freq.freq DESC NULLS LAST, sp.display_name COLLATE "C"
     LIMIT $5`,
    [query, code, `${code}%`, containsPattern(query), limit],
  )
  return rows.map((r) => ({
    code: r.code.trim(),
    description: r.description,
    genre: 'SPECIALTY',
    score: Math.round(Number(r.score) * 1000) / 1000,
  }))
}
