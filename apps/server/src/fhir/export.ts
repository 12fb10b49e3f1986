import { FHIR_MESSAGES, FHIR_RESOURCE_TYPES, type FhirResourceType } from '@citrus/contracts'
import type pg from 'pg'
import { KINDS } from './kinds.js'
import { invalid } from './outcome.js'
import { filterContext, renderOf, renderedJson, type DirectoryVersion } from './search.js'

/**
 * Bulk download in the manner of FHIR Bulk Data `$export`, without the asynchronous job: the manifest lists one
 * NDJSON file per resource type, and each file streams straight from the database in keyset batches, so a
 * partner syncing the whole directory holds one batch in memory at a time and the server no job state.
 */

/** rows per statement while streaming */
export const EXPORT_BATCH = 2000

/** `_type=Practitioner,Location` (default: every type); any other parameter is refused. */
export function parseExportType(pairs: [string, string][]): FhirResourceType[] {
  let types: FhirResourceType[] = [...FHIR_RESOURCE_TYPES]
  for (const [key, value] of pairs) {
    if (key !== '_type' && key !== '_outputFormat')
      throw invalid(`Unknown $export parameter "${key}": only _type and _outputFormat are supported`, key)
    if (key === '_outputFormat') {
      if (!['application/fhir+ndjson', 'application/ndjson', 'ndjson'].includes(value))
        throw invalid('Only NDJSON is exported (_outputFormat=application/fhir+ndjson)', key)
      continue
    }
    const asked = value.split(',')
    const unknown = asked.find((type) => !(FHIR_RESOURCE_TYPES as readonly string[]).includes(type))
    if (unknown !== undefined) throw invalid(FHIR_MESSAGES.unknownType(unknown), '_type')
    types = asked as FhirResourceType[]
  }
  return types
}

/** The manifest of an export: its files need the caller's credential unless the directory is public (FHIR_PUBLIC). */
export function exportManifest(
  baseUrl: string,
  types: readonly FhirResourceType[],
  version: DirectoryVersion,
  requestUrl: string,
  requiresAccessToken: boolean,
) {
  return {
    transactionTime: version.meta.loadedAt,
    request: `${baseUrl.replace(/\/fhir$/, '')}${requestUrl}`,
    requiresAccessToken,
    output: types.map((type) => ({ type, url: `${baseUrl}/$export/${type}.ndjson` })),
    error: [],
  }
}

/**
 * One type's resources as NDJSON, every kind of it in id order, batch after batch (keyset), with each batch's count
 * (of resources: a clinician's rows are its PractitionerRoles, one per network).
 */
export async function* exportBatches(
  pool: pg.Pool,
  type: FhirResourceType,
  version: DirectoryVersion,
): AsyncGenerator<{ text: string; count: number; rows: number }> {
  const render = renderOf(version, await filterContext(pool, version))
  for (const kind of KINDS[type]) {
    let after = 0
    for (;;) {
      const { rows } = await pool.query<Record<string, unknown> & { id: number }>(
        `SELECT ${kind.select} FROM ${kind.from} WHERE t.id > $1 ORDER BY t.id LIMIT ${EXPORT_BATCH}`,
        [after],
      )
      if (rows.length === 0) break
      let text = ''
      let count = 0
      for (const row of rows)
        for (const json of renderedJson(kind, row, render)) {
          text += `${json}\n`
          count++
        }
      yield { text, count, rows: rows.length }
      after = rows[rows.length - 1]!.id
      if (rows.length < EXPORT_BATCH) break
    }
  }
}

/** One type's resources as NDJSON text chunks (the HTTP body of an export file). */
export async function* exportStream(pool: pg.Pool, type: FhirResourceType, version: DirectoryVersion): AsyncGenerator<string> {
  for await (const batch of exportBatches(pool, type, version)) yield batch.text
}

/**
 * How many rows an export of `type` reads (the CLI's progress total): for PractitionerRole its clinicians, each one
 * role per network it is in. Counting the roles themselves reads every clinician's networks, minutes at the full
 * scale (6 min 23 s for 71 million roles, docs/fhir.md), before the first line could be written.
 */
export async function exportRowCount(pool: pg.Pool, type: FhirResourceType): Promise<number> {
  const counts = await Promise.all(
    KINDS[type].map(async (kind) => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${kind.from}`)).rows[0]?.n ?? 0)),
  )
  return counts.reduce((sum, n) => sum + n, 0)
}
