/**
 * Joins by claim id in SQL text (source code, or a view's definition as pg_get_viewdef prints it). Citus distributes
 * every claim table by patient (docs/scaling.md "Beyond one database machine"): a join of claims with their lines or
 * cases is co-located, run on each shard, only when it also matches the patient; on the claim id alone Citus can run
 * it only by repartitioning the rows between nodes.
 */
export interface ClaimJoin {
  /** `JOIN <relation> <alias> ON <condition>`, as written */
  text: string
  /** whether the condition also equates two rows' patient_id */
  colocated: boolean
}

// JOIN, the relation (optionally quoted), an optional alias, ON, and the condition up to the end of the line
const JOIN = /\bJOIN\s+("?\w+"?)(?:\s+(?:AS\s+)?(?!ON\b)"?\w+"?)?\s+ON\s+([^\n`]*)/gi
// where a condition written on one line with the rest of its query stops
const CONDITION_END = /\s(?:WHERE|GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|(?:LEFT\s+|RIGHT\s+|FULL\s+|INNER\s+|CROSS\s+)?JOIN|UNION)\b/i
const PATIENTS_EQUAL = /(\w+)"?\."?patient_id"?\)?\s*=\s*\(?"?(\w+)"?\."?patient_id\b/gi

/** Every join whose condition matches a claim id (`claim_id`), with whether it matches the patient too. */
export function claimJoins(sql: string): ClaimJoin[] {
  const out: ClaimJoin[] = []
  for (const m of sql.matchAll(JOIN)) {
    const condition = m[2]!.split(CONDITION_END)[0]!
    if (!/\bclaim_id\b/i.test(condition)) continue
    const colocated = [...condition.matchAll(PATIENTS_EQUAL)].some((p) => p[1]!.toLowerCase() !== p[2]!.toLowerCase())
    out.push({ text: `JOIN ${m[1]} … ON ${condition.trim()}`, colocated })
  }
  return out
}
