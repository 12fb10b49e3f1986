import type { CodeOption, ProcedureOption, SpecialtyOption } from '@citrus/contracts'
import type pg from 'pg'

/**
 * The look-ups behind /typeahead/* (docs/decisions/0009). Ranking: an exact code first, then code prefixes
 * (E119 finds E11.9, 2744 finds 27447), then text matches by pg_trgm word similarity, which tolerates typos
 * ('diabtes', 'hypertenshun') and uses the GIN trigram indexes (`<%`, ILIKE). Ties go to the
 * codes used most in the claims (planner statistics, no scan), then to the reference starter set (the conditions
 * and procedures the product features), then to shorter, closer texts.
 */

/** Letters and digits of a code-like query, upper case: 'e11.9' → 'E119'. */
export const compactCode = (query: string) => query.toUpperCase().replace(/[^A-Z0-9]/g, '')
/** A LIKE/ILIKE pattern matching the text anywhere. */
const containsPattern = (query: string) => `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** How often each value of a column occurs, from the planner's statistics (most common values; no scan). */
const frequencies = (table: string, column: string) => `freq AS (
  SELECT u.v AS value, u.f AS freq
  FROM pg_stats s, unnest(s.most_common_vals::text::text[], s.most_common_freqs) AS u(v, f)
  WHERE s.schemaname = 'public' AND s.tablename = '${table}' AND s.attname = '${column}'
)`

interface Ranked {
  tier: number
  score: number
}

export async function searchIcd10(pool: pg.Pool, query: string, limit: number): Promise<CodeOption[]> {
  const code = compactCode(query)
  const { rows } = await pool.query<CodeOption & Ranked>(
    `WITH ${frequencies('claim_diagnoses', 'icd10_code')}
     SELECT code, description, long_description, parent_code,
            CASE WHEN replace(code, '.', '') = $2 THEN 3 WHEN $2 <> '' AND replace(code, '.', '') LIKE $3 THEN 2 ELSE 1 END AS tier,
            greatest(word_similarity($1, description), word_similarity($1, long_description),
                     CASE WHEN description ILIKE $4 THEN 1 ELSE 0 END) AS score
     FROM icd10_codes LEFT JOIN freq ON freq.value = code
     WHERE ($2 <> '' AND replace(code, '.', '') LIKE $3) OR $1 <% description OR $1 <% long_description OR description ILIKE $4
     ORDER BY tier DESC, score DESC, freq.freq DESC NULLS LAST, (source = 'starter') DESC, similarity($1, description) DESC, length(code), code COLLATE "C"
     LIMIT $5`,
    [query, code, `${code}%`, containsPattern(query), limit],
  )
  return rows.map(({ code: c, description, long_description, parent_code }) => ({ code: c, description, long_description, parent_code }))
}

export async function searchProcedureCodes(pool: pg.Pool, query: string, limit: number): Promise<CodeOption[]> {
  const code = compactCode(query)
  const { rows } = await pool.query<CodeOption & Ranked>(
    `WITH ${frequencies('claim_procedures', 'procedure_code')}
     SELECT code, description, coalesce(long_description, description) AS long_description, NULL::text AS parent_code,
            CASE WHEN code = $2 THEN 3 WHEN $2 <> '' AND code LIKE $3 THEN 2 ELSE 1 END AS tier,
            greatest(word_similarity($1, description), coalesce(word_similarity($1, long_description), 0),
                     CASE WHEN description ILIKE $4 THEN 1 ELSE 0 END) AS score
     FROM procedure_codes LEFT JOIN freq ON freq.value = code
     WHERE (termination_date IS NULL OR termination_date > current_date)
       AND (($2 <> '' AND code LIKE $3) OR $1 <% description OR $1 <% long_description OR description ILIKE $4)
     ORDER BY tier DESC, score DESC, freq.freq DESC NULLS LAST, (source = 'starter') DESC, similarity($1, description) DESC, code COLLATE "C"
     LIMIT $5`,
    [query, code, `${code}%`, containsPattern(query), limit],
  )
  return rows.map(({ code: c, description, long_description, parent_code }) => ({ code: c, description, long_description, parent_code }))
}

/**
 * Price Check procedures: the shoppable procedures (a name and its codes), then single codes that are not
 * already a shoppable procedure of their own, so that any code can be priced.
 */
export async function searchProcedures(pool: pg.Pool, query: string, limit: number): Promise<ProcedureOption[]> {
  const code = compactCode(query)
  const { rows } = await pool.query<ProcedureOption & Ranked & { kind: number }>(
    `SELECT name, cpt_codes, description, tier, score, kind FROM (
       SELECT s.name, s.cpt_codes, s.description, 0 AS kind,
              CASE WHEN $2 = ANY (s.cpt_codes) THEN 3 WHEN $2 <> '' AND EXISTS (SELECT 1 FROM unnest(s.cpt_codes) c WHERE c LIKE $3) THEN 2 ELSE 1 END AS tier,
              greatest(word_similarity($1, s.name), word_similarity($1, s.description) * 0.8, CASE WHEN s.name ILIKE $4 THEN 1 ELSE 0 END) AS score
       FROM shoppable_procedures s
       WHERE $1 <% s.name OR s.name ILIKE $4 OR $1 <% s.description
          OR ($2 <> '' AND EXISTS (SELECT 1 FROM unnest(s.cpt_codes) c WHERE c LIKE $3))
       UNION ALL
       SELECT p.description, ARRAY[p.code], coalesce(p.long_description, p.description), 1,
              CASE WHEN p.code = $2 THEN 3 WHEN $2 <> '' AND p.code LIKE $3 THEN 2 ELSE 1 END,
              greatest(word_similarity($1, p.description), CASE WHEN p.description ILIKE $4 THEN 1 ELSE 0 END)
       FROM procedure_codes p
       WHERE (p.termination_date IS NULL OR p.termination_date > current_date)
         AND (($2 <> '' AND p.code LIKE $3) OR $1 <% p.description OR p.description ILIKE $4)
         AND NOT EXISTS (SELECT 1 FROM shoppable_procedures s WHERE s.cpt_codes = ARRAY[p.code])
     ) x
     ORDER BY tier DESC, kind, score DESC, similarity($1, name) DESC, name COLLATE "C"
     LIMIT $5`,
    [query, code, `${code}%`, containsPattern(query), limit],
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
  const { rows } = await pool.query<{ code: string; description: string; score: number }>(
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
  return rows.map((r) => ({ code: r.code.trim(), description: r.description, genre: 'SPECIALTY', score: Math.round(Number(r.score) * 1000) / 1000 }))
}

export async function insurerNames(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>('SELECT name FROM insurers ORDER BY name COLLATE "C"')
  return rows.map((r) => r.name)
}
