/**
 * Word search for the code look-ups (docs/decisions/0010-typeahead-word-search.md).
 *
 * A code's words are the lexemes of its short and long description ('simple' text-search configuration, in
 * the generated column search_terms with a GIN index). Each typed word is matched, in this order of
 * preference, as:
 *   1. the word itself, or any word it starts (typing 'diab' finds 'diabetes'; from 3 letters, or from 2 for
 *      the last word, which is still being typed: 'osteoarth kn'), or a clinical abbreviation's
 *      expansion (COPD → chronic obstructive pulmonary);
 *   2. when the word is in no description at all, the closest words of the vocabulary (mv_search_words, by
 *      trigram similarity): 'diabtes' → diabetes, 'hypertenshun' → hypertension, hypertensive.
 * A code matches when it holds every typed word (one tsquery, one GIN index scan). Matching the few thousand
 * short words of the vocabulary instead of scoring every candidate description is what keeps a look-up at a
 * millisecond or two, also with many concurrent typists.
 */

export type SearchDomain = 'icd10' | 'procedure'

/** At most this many words of a query take part (a typeahead query is a few words). */
const MAX_TOKENS = 8
/** Closest vocabulary words taken for a word that is in no description. */
const FUZZY_ALTERNATIVES = 4
/** Trigram similarity a vocabulary word needs to stand in for a misspelt word. */
export const FUZZY_THRESHOLD = 0.4
/**
 * Corrections this close to the closest one count as equally likely ('hypertenshun' is as near hypertension
 * as hypertensive); the claims then decide between them.
 */
const BEST_MARGIN = 0.05

/**
 * The words of a query as the 'simple' configuration would index them: lower case, accents removed, split on
 * anything but letters, digits and inner hyphens (the parser keeps 'x-ray' and 'covid-19' as words).
 */
export function searchTokens(query: string): string[] {
  return query
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9-]+/)
    .map((token) => token.replace(/^-+|-+$/g, ''))
    .filter((token) => token !== '')
    .slice(0, MAX_TOKENS)
    .map((token) => token.slice(0, 40))
}

/**
 * Abbreviations and lay words clinicians and members type, with the words of the official descriptions they
 * stand for. Each expansion is a list of words that must all appear; several expansions are alternatives.
 * Every word here is a lexeme of the official descriptions (checked by importers.int.test.ts on the official
 * ICD-10-CM and HCPCS files when ../shared/data is present).
 */
export const SYNONYMS: Record<SearchDomain, Record<string, string[][]>> = {
  icd10: {
    copd: [['chronic', 'obstructive', 'pulmonary']],
    chf: [['heart', 'failure']],
    htn: [['hypertension'], ['hypertensive']],
    hld: [['hyperlipidemia']],
    dm: [['diabetes']],
    t2dm: [['type', '2', 'diabetes']],
    t2d: [['type', '2', 'diabetes']],
    dm2: [['type', '2', 'diabetes']],
    t1dm: [['type', '1', 'diabetes']],
    t1d: [['type', '1', 'diabetes']],
    dm1: [['type', '1', 'diabetes']],
    esrd: [['end', 'stage', 'renal']],
    cad: [['coronary', 'artery']],
    mi: [['myocardial', 'infarction']],
    afib: [['atrial', 'fibrillation']],
    gerd: [['esophageal', 'reflux']],
    uti: [['urinary', 'tract', 'infection']],
    uri: [['upper', 'respiratory', 'infection']],
    ra: [['rheumatoid', 'arthritis']],
    oa: [['osteoarthritis']],
    dvt: [['deep', 'thrombosis']],
    pe: [['pulmonary', 'embolism']],
    adhd: [['attention-deficit', 'hyperactivity']],
    ptsd: [['post-traumatic', 'stress']],
    bph: [['benign', 'prostatic', 'hyperplasia']],
    osa: [['obstructive', 'sleep', 'apnea']],
    mdd: [['major', 'depressive']],
    gad: [['generalized', 'anxiety']],
    ibs: [['irritable', 'bowel']],
    ms: [['multiple', 'sclerosis']],
    cva: [['cerebral', 'infarction']],
    stroke: [['cerebral', 'infarction']],
    tia: [['transient', 'ischemic']],
    flu: [['influenza']],
    snakebite: [
      ['snake', 'venom'],
      ['rattlesnake', 'venom'],
    ],
    envenomation: [['venom']],
  },
  procedure: {
    ekg: [['ecg'], ['electrocardiogram']],
    ecg: [['ekg'], ['electrocardiogram']],
    electrocardiogram: [['ecg'], ['ekg']],
    xray: [['x-ray']],
    mri: [['magnetic', 'resonance']],
    ct: [['computed', 'tomography']],
    pt: [['physical', 'therapy']],
    ot: [['occupational', 'therapy']],
    tka: [['knee', 'replacement']],
    tkr: [['knee', 'replacement']],
    tha: [['hip', 'replacement']],
    thr: [['hip', 'replacement']],
    egd: [['upper', 'gi', 'endoscopy']],
    cbc: [['blood', 'count']],
    bmp: [['metabolic', 'panel']],
    cmp: [['metabolic', 'panel']],
    psa: [['prostate', 'specific', 'antigen']],
    tsh: [['thyroid', 'stimulating']],
    csection: [['cesarean']],
  },
}

const quoteLexeme = (word: string) => `'${word.replace(/'/g, "''")}'`

/** The tsquery text of each token's abbreviation expansions ('' when it has none), aligned with the tokens. */
export function synonymQueries(domain: SearchDomain, tokens: string[]): string[] {
  return tokens.map((token) => {
    const expansions = Object.hasOwn(SYNONYMS[domain], token) ? SYNONYMS[domain][token]! : []
    return expansions.map((words) => `(${words.map(quoteLexeme).join(' & ')})`).join(' | ')
  })
}

/**
 * SQL of the CTE `search`: one row with three tsqueries over a code's search_terms, built from the query's
 * tokens ($tokens text[]) and their expansions ($synonyms text[], from synonymQueries).
 * - `any_q`: every token, by its word, prefix, expansion or closest vocabulary words (the candidates);
 * - `best_q`: as any_q with only the closest vocabulary words (ranks the likeliest corrections first);
 * - `exact_q`: words, prefixes and expansions only (no correction: ranks what was typed right first).
 * A token with no match of any kind (no word, prefix, expansion or close word) empties the search, as does a
 * query without words: `search` then has no row. Vocabulary words with a backslash are never offered as
 * corrections: quote_literal would write them as E'' strings, which the tsquery syntax does not read.
 */
export function searchQueriesSql(domain: SearchDomain, params: { tokens: string; synonyms: string }): string {
  const vocabulary = `mv_search_words w WHERE w.domain = '${domain}'`
  return `tokens AS (
       SELECT t.token, t.synonyms, t.prefix,
              EXISTS (SELECT 1 FROM ${vocabulary} AND w.word ~>=~ t.token
                        AND w.word ~<~ CASE WHEN t.prefix THEN t.token || '~' ELSE t.token || chr(1) END) AS known
       FROM (SELECT u.token, u.synonyms,
                    length(u.token) >= 3 OR (u.n = cardinality(${params.tokens}::text[]) AND length(u.token) >= 2) AS prefix
             FROM unnest(${params.tokens}::text[], ${params.synonyms}::text[]) WITH ORDINALITY AS u(token, synonyms, n)) t
     ),
     alternatives AS (
       SELECT quote_literal(t.token) || CASE WHEN t.prefix THEN ':*' ELSE '' END
                || CASE WHEN t.synonyms <> '' THEN ' | ' || t.synonyms ELSE '' END AS exact,
              f.words, f.best, t.known, t.synonyms
       FROM tokens t
       LEFT JOIN LATERAL (
         SELECT string_agg(quote_literal(c.word), ' | ') AS words,
                string_agg(quote_literal(c.word), ' | ') FILTER (WHERE c.sim >= c.top - ${BEST_MARGIN}) AS best
         FROM (SELECT w.word, similarity(w.word, t.token) AS sim, max(similarity(w.word, t.token)) OVER () AS top
               FROM ${vocabulary} AND NOT t.known AND w.word % t.token AND strpos(w.word, '\\') = 0
               ORDER BY sim DESC, w.documents DESC LIMIT ${FUZZY_ALTERNATIVES}) c
         WHERE c.sim >= ${FUZZY_THRESHOLD}
       ) f ON true
     ),
     search AS (
       SELECT string_agg('(' || exact || coalesce(' | ' || words, '') || ')', ' & ')::tsquery AS any_q,
              string_agg('(' || exact || coalesce(' | ' || best, '') || ')', ' & ')::tsquery AS best_q,
              string_agg('(' || exact || ')', ' & ')::tsquery AS exact_q
       FROM alternatives
       HAVING bool_and(known OR synonyms <> '' OR words IS NOT NULL)
     )`
}

/** SQL of a text-match score for a row's search_terms: 3 as typed, 2 the likeliest correction, 1 another. */
export const searchScoreSql = (column: string) =>
  `CASE WHEN ${column} @@ s.exact_q THEN 3 WHEN ${column} @@ s.best_q THEN 2 WHEN ${column} @@ s.any_q THEN 1 ELSE 0 END`
