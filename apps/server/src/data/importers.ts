import { createReadStream, statSync } from 'node:fs'
import { createGunzip } from 'node:zlib'
import {
  parseCensusCountyPopulation,
  parseCmsHospitals,
  parseGazetteerCounties,
  parseHcpcs,
  parseIcd10CmOrder,
  parseNppes,
  parseNuccTaxonomy,
  parsePriceFileCsv,
  parsePriceFileJson,
  type CensusPopulationRow,
  type CmsHospital,
  type CopyValue,
  type GazetteerCounty,
  type HcpcsCode,
  type Icd10CmCode,
  type NppesProvider,
  type NuccTaxonomy,
  type ParseResult,
  type PriceFileHeader,
  type StandardCharge,
  type TextSource,
} from '@citrus/data-kit'
import type pg from 'pg'
import type { Row } from '../db/kysely.js'
import { badRequest } from '../lib/errors.js'
import { bulkLoad, forceBulkMethod, quoteIdent, type BulkMethod } from './bulk.js'
import { failLoad, finishLoad, startLoad } from './loads.js'
import { Progress, formatCount, formatSeconds, type ProgressSink } from './progress.js'
import { createStage } from './reference.js'
import { mergePendingIndexEntries, refreshPriceCodePoints, refreshProviderPoints, refreshSearchWords } from './refresh.js'

export const IMPORT_KINDS = ['nppes', 'nucc', 'icd10cm', 'hcpcs', 'hospitals', 'census', 'prices'] as const
export type ImportKind = (typeof IMPORT_KINDS)[number]

export interface ImportReason {
  /** line (or item number, for JSON price files) of the input */
  line: number
  reason: string
}

export interface ImportSummary {
  load_id: number
  kind: ImportKind
  file: string
  /** records read from the file (good and malformed) */
  read: number
  /** rows inserted or updated */
  written: number
  /** records refused, with reasons */
  rejected: number
  /** valid records this import does not hold (e.g. organisations in the NPPES file), by reason */
  skipped: number
  /** the first `maxReasons` rejections */
  reasons: ImportReason[]
  skipped_reasons: Record<string, number>
  seconds: number
}

export interface ImportOptions {
  /** prices: the facility the price file belongs to (id, NPI or CCN) when its header does not tell */
  facility?: string
  maxReasons?: number
  sink?: ProgressSink
  /** rows per database batch (one transaction each) */
  batchSize?: number
  /** COPY or batched inserts into the staging tables (DATA_LOAD_METHOD); unset = the engine's default */
  method?: BulkMethod
}

/** A staged row: the values in stage-column order, and where it came from. */
interface StagedRow {
  line: number
  values: CopyValue[]
}

/** What an importer does with one parsed record. */
type Mapped = { row: CopyValue[] } | { reject: string } | { skip: string }

interface ImporterSpec<T> {
  /** stage table columns (the loader adds _line) */
  stage: string
  columns: string[]
  parse(source: TextSource): AsyncIterable<ParseResult<T>>
  map(record: T): Mapped
  /** SQL returning (_line, reason) for staged rows the database refuses (unknown ZIP, ...); `{stage}` is the stage */
  rejectSql?: string
  /** the upsert from the stage (rows named by rejectSql are already removed); `{stage}` is the stage */
  upsertSql: string
}

class Tally {
  read = 0
  written = 0
  rejected = 0
  skipped = 0
  reasons: ImportReason[] = []
  skippedReasons: Record<string, number> = {}
  constructor(private readonly maxReasons: number) {}
  reject(line: number, reason: string) {
    this.rejected++
    if (this.reasons.length < this.maxReasons) this.reasons.push({ line, reason })
  }
  skip(reason: string, count = 1) {
    this.skipped += count
    this.skippedReasons[reason] = (this.skippedReasons[reason] ?? 0) + count
  }
}

/** The file as a byte stream (gunzipped when .gz) and how much of it has been read, for the percentage. */
function openCounted(file: string): { source: AsyncIterable<Uint8Array>; fraction(): number } {
  const size = statSync(file).size
  const raw = createReadStream(file, { highWaterMark: 1 << 20 })
  let bytes = 0
  raw.on('data', (chunk) => (bytes += chunk.length))
  return { source: file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw, fraction: () => (size > 0 ? bytes / size : 1) }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'database error'

/**
 * Writes one batch: stage, drop the rows the database refuses (with reasons), upsert, in one transaction. When
 * the batch fails anyway (a constraint nobody foresaw), it is split in halves until the failing rows are
 * isolated and rejected with the database's message, so one bad row never costs the good ones.
 */
async function writeBatch<T>(client: pg.ClientBase, spec: ImporterSpec<T>, rows: StagedRow[], tally: Tally): Promise<void> {
  if (rows.length === 0) return
  await client.query('BEGIN')
  try {
    const stage = await createStage(client, 'import', `_line int, ${spec.stage}`)
    const q = (sql: string) => sql.replaceAll('{stage}', quoteIdent(stage))
    await bulkLoad(client, stage, ['_line', ...spec.columns], rows.map((r) => [r.line, ...r.values]))
    const refused: ImportReason[] = []
    if (spec.rejectSql) {
      const { rows: bad } = await client.query<{ _line: number; reason: string }>(q(spec.rejectSql))
      if (bad.length > 0) {
        await client.query(q(`DELETE FROM {stage} WHERE _line = ANY($1::int[])`), [bad.map((b) => b._line)])
        refused.push(...bad.map((b) => ({ line: b._line, reason: b.reason })))
      }
    }
    const result = await client.query(q(spec.upsertSql))
    await client.query('COMMIT')
    for (const r of refused) tally.reject(r.line, r.reason)
    const written = result.rowCount ?? 0
    tally.written += written
    // the upserts keep the last of several records with the same key (DISTINCT ON ... _line DESC)
    const duplicates = rows.length - refused.length - written
    if (duplicates > 0) tally.skip('repeated: a later record has the same key', duplicates)
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    if (rows.length === 1) {
      tally.reject(rows[0]!.line, errorText(error))
      return
    }
    const half = Math.ceil(rows.length / 2)
    await writeBatch(client, spec, rows.slice(0, half), tally)
    await writeBatch(client, spec, rows.slice(half), tally)
  }
}

async function runSpec<T>(client: pg.ClientBase, spec: ImporterSpec<T>, file: string, tally: Tally, progress: Progress, label: string, batchSize: number): Promise<void> {
  const input = openCounted(file)
  const step = progress.step(label, 1000)
  let batch: StagedRow[] = []
  let item = 0
  for await (const result of spec.parse(input.source)) {
    item++
    tally.read++
    if ('rejected' in result) {
      tally.reject(result.rejected.line, result.rejected.reason)
    } else {
      const mapped = spec.map(result.ok)
      // the record's line; the record number for formats without lines (JSON items)
      const line = result.line ?? item
      if ('row' in mapped) batch.push({ line, values: mapped.row })
      else if ('reject' in mapped) tally.reject(line, mapped.reject)
      else tally.skip(mapped.skip)
    }
    if (batch.length >= batchSize) {
      await writeBatch(client, spec, batch, tally)
      batch = []
    }
    step.tick(1, Math.floor(input.fraction() * 1000))
  }
  await writeBatch(client, spec, batch, tally)
  step.finish(tally.read)
}

// ---------------------------------------------------------------- the importers

const specialtyKindSql = `CASE WHEN s.section = 'Non-Individual' THEN 'facility' ELSE NULL END`

const nucc: ImporterSpec<NuccTaxonomy> = {
  stage: 'code text, grouping text, classification text, specialization text, display_name text, definition text, section text',
  columns: ['code', 'grouping', 'classification', 'specialization', 'display_name', 'definition', 'section'],
  parse: parseNuccTaxonomy,
  map: (t) => ({ row: [t.code, t.grouping, t.classification, t.specialization, t.display_name, t.definition, t.section] }),
  upsertSql: `INSERT INTO specialties AS sp (code, grouping, classification, specialization, display_name, definition, section, provider_kind, source, updated_at)
    SELECT DISTINCT ON (code) code, grouping, classification, specialization, display_name, definition, section, ${specialtyKindSql}, 'nucc', now() FROM {stage} s ORDER BY code, _line DESC
    ON CONFLICT (code) DO UPDATE SET grouping = EXCLUDED.grouping, classification = EXCLUDED.classification, specialization = EXCLUDED.specialization,
      display_name = EXCLUDED.display_name, definition = EXCLUDED.definition, section = EXCLUDED.section,
      provider_kind = COALESCE(sp.provider_kind, EXCLUDED.provider_kind), source = 'nucc', updated_at = now()`,
}

const icd10cm: ImporterSpec<Icd10CmCode> = {
  stage: 'code text, description text, long_description text, parent_code text, billable boolean, order_number int',
  columns: ['code', 'description', 'long_description', 'parent_code', 'billable', 'order_number'],
  parse: parseIcd10CmOrder,
  map: (c) => ({ row: [c.code, c.short_description, c.long_description, c.parent_code, c.billable, c.order_number] }),
  upsertSql: `INSERT INTO icd10_codes (code, description, long_description, parent_code, billable, order_number, source, updated_at)
    SELECT DISTINCT ON (code) code, description, long_description, parent_code, billable, order_number, 'cms', now() FROM {stage} ORDER BY code, _line DESC
    ON CONFLICT (code) DO UPDATE SET description = EXCLUDED.description, long_description = EXCLUDED.long_description, parent_code = EXCLUDED.parent_code,
      billable = EXCLUDED.billable, order_number = EXCLUDED.order_number, source = 'cms', updated_at = now()`,
}

const hcpcs: ImporterSpec<HcpcsCode> = {
  stage: 'code text, short_description text, long_description text, termination_date date',
  columns: ['code', 'short_description', 'long_description', 'termination_date'],
  parse: parseHcpcs,
  map: (c) => (c.kind === 'modifier' ? { skip: 'modifier (not a procedure code)' } : { row: [c.code, c.short_description || c.long_description, c.long_description, c.termination_date] }),
  // our plain-language names stay on the codes we author; CMS's text is kept as the long description
  upsertSql: `INSERT INTO procedure_codes AS p (code, code_system, description, long_description, termination_date, source, updated_at)
    SELECT DISTINCT ON (code) code, 'HCPCS', short_description, long_description, termination_date, 'cms', now() FROM {stage} ORDER BY code, _line DESC
    ON CONFLICT (code) DO UPDATE SET long_description = EXCLUDED.long_description, termination_date = EXCLUDED.termination_date,
      description = CASE WHEN p.source = 'starter' THEN p.description ELSE EXCLUDED.description END, updated_at = now()`,
}

/** CMS hospital type → our facility type and NUCC taxonomy. */
function hospitalKind(type: string): { facility_type: string; taxonomy: string } {
  const t = type.toLowerCase()
  if (t.includes('critical access')) return { facility_type: 'critical_access', taxonomy: '282NC0060X' }
  if (t.includes('psychiatric')) return { facility_type: 'hospital', taxonomy: '283Q00000X' }
  if (t.includes('children')) return { facility_type: 'hospital', taxonomy: '282NC2000X' }
  return { facility_type: 'hospital', taxonomy: '282N00000X' }
}

const hospitals: ImporterSpec<CmsHospital> = {
  stage: 'ccn text, name text, address text, city text, state text, zip_code text, phone_number text, facility_type text, taxonomy_code text, ownership text, emergency_services boolean, overall_rating int',
  columns: ['ccn', 'name', 'address', 'city', 'state', 'zip_code', 'phone_number', 'facility_type', 'taxonomy_code', 'ownership', 'emergency_services', 'overall_rating'],
  parse: parseCmsHospitals,
  map: (h) => {
    if (h.address === '' || h.city === '') return { reject: 'missing Address or City/Town' }
    const kind = hospitalKind(h.hospital_type)
    return { row: [h.ccn, h.name, h.address, h.city, h.state, h.zip_code, h.phone_number, kind.facility_type, kind.taxonomy, h.ownership, h.emergency_services, h.overall_rating] }
  },
  // coordinates come from the ZIP's internal point: a ZIP we do not know cannot be placed on the map
  rejectSql: `SELECT s._line, 'ZIP Code ' || s.zip_code || ' is not a known US ZIP (no coordinates)' AS reason FROM {stage} s WHERE NOT EXISTS (SELECT 1 FROM zips z WHERE z.zip = s.zip_code)`,
  upsertSql: `INSERT INTO facilities (ccn, name, facility_type, hco_compile_level_1, taxonomy_code, address_line_1, city, state, zip_code, county_fips, latitude, longitude,
      phone_number, emergency_services, overall_rating, ownership, source, updated_at)
    SELECT DISTINCT ON (s.ccn) s.ccn, s.name, s.facility_type, 'Hospital', s.taxonomy_code, s.address, s.city, s.state, s.zip_code, z.county_fips, z.latitude, z.longitude,
      s.phone_number, coalesce(s.emergency_services, false), s.overall_rating, s.ownership, 'cms', now()
    FROM {stage} s JOIN zips z ON z.zip = s.zip_code ORDER BY s.ccn, s._line DESC
    ON CONFLICT (ccn) DO UPDATE SET name = EXCLUDED.name, facility_type = EXCLUDED.facility_type, taxonomy_code = EXCLUDED.taxonomy_code,
      address_line_1 = EXCLUDED.address_line_1, city = EXCLUDED.city, state = EXCLUDED.state, zip_code = EXCLUDED.zip_code, county_fips = EXCLUDED.county_fips,
      latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude, phone_number = EXCLUDED.phone_number, emergency_services = EXCLUDED.emergency_services,
      overall_rating = EXCLUDED.overall_rating, ownership = EXCLUDED.ownership, updated_at = now()`,
}

const census: ImporterSpec<CensusPopulationRow> = {
  stage: 'level text, state_fips text, county_fips text, name text, population int',
  columns: ['level', 'state_fips', 'county_fips', 'name', 'population'],
  parse: parseCensusCountyPopulation,
  map: (r) => ({ row: [r.level, r.state_fips, r.county_fips, r.name, r.population] }),
  rejectSql: `SELECT s._line, 'unknown state FIPS ' || s.state_fips AS reason FROM {stage} s WHERE NOT EXISTS (SELECT 1 FROM states st WHERE st.fips = s.state_fips)`,
  // counties the boundary file does not have (e.g. Connecticut's planning regions) are added without a polygon
  upsertSql: `WITH st AS (
      UPDATE states SET population = s.population FROM {stage} s WHERE s.level = 'state' AND states.fips = s.state_fips RETURNING 1
    ), co AS (
      INSERT INTO counties (fips, state_fips, name, population)
      SELECT DISTINCT ON (county_fips) county_fips, state_fips, name, population FROM {stage} WHERE level = 'county' ORDER BY county_fips, _line DESC
      ON CONFLICT (fips) DO UPDATE SET population = EXCLUDED.population RETURNING 1
    )
    SELECT 1 FROM st UNION ALL SELECT 1 FROM co`,
}

const gazetteer: ImporterSpec<GazetteerCounty> = {
  stage: 'state text, county_fips text, name text, latitude float8, longitude float8',
  columns: ['state', 'county_fips', 'name', 'latitude', 'longitude'],
  parse: parseGazetteerCounties,
  map: (r) => ({ row: [r.state, r.county_fips, r.name, r.latitude, r.longitude] }),
  rejectSql: `SELECT s._line, 'unknown state ' || s.state AS reason FROM {stage} s WHERE NOT EXISTS (SELECT 1 FROM states st WHERE st.abbr = s.state)`,
  upsertSql: `INSERT INTO counties (fips, state_fips, name, latitude, longitude)
    SELECT DISTINCT ON (s.county_fips) s.county_fips, st.fips, s.name, s.latitude, s.longitude FROM {stage} s JOIN states st ON st.abbr = s.state ORDER BY s.county_fips, s._line DESC
    ON CONFLICT (fips) DO UPDATE SET latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude`,
}

const nppes: ImporterSpec<NppesProvider> = {
  stage: 'npi text, first_name text, middle_name text, last_name text, full_name text, title text, primary_taxonomy_code text, gender text, phone_number text, address text, city text, state text, zip_code text, last_verified_at date',
  columns: ['npi', 'first_name', 'middle_name', 'last_name', 'full_name', 'title', 'primary_taxonomy_code', 'gender', 'phone_number', 'address', 'city', 'state', 'zip_code', 'last_verified_at'],
  parse: parseNppes,
  map: (p) => {
    if (p.entity_type === null) return { skip: 'deactivated NPI' }
    if (p.entity_type === 'organization') return { skip: 'organisation NPI (the directory holds individual clinicians)' }
    if (!p.primary_taxonomy_code) return { reject: `NPI ${p.npi} has no primary taxonomy` }
    if (p.country_code && p.country_code !== 'US') return { reject: `NPI ${p.npi} practises outside the US (${p.country_code})` }
    if (!p.zip_code || !p.address_line_1 || !p.city || !p.state) return { reject: `NPI ${p.npi} has no complete practice address` }
    const first = p.first_name ?? ''
    const middle = p.middle_name ? ` ${p.middle_name.length === 1 ? `${p.middle_name}.` : p.middle_name}` : ''
    const full = `${first}${middle} ${p.last_name ?? ''}${p.credential ? `, ${p.credential}` : ''}`.trim()
    return {
      row: [p.npi, first, p.middle_name, p.last_name, full, p.credential, p.primary_taxonomy_code, p.gender === 'X' ? null : p.gender, p.phone_number, p.address_line_1, p.city, p.state, p.zip_code, p.last_update_date ?? p.enumeration_date],
    }
  },
  rejectSql: `SELECT s._line, 'practice ZIP ' || s.zip_code || ' is not a known US ZIP (no coordinates)' AS reason FROM {stage} s WHERE NOT EXISTS (SELECT 1 FROM zips z WHERE z.zip = s.zip_code)`,
  // An NPI the synthetic directory happens to use becomes the real clinician (re-seeding then skips it).
  upsertSql: `INSERT INTO providers AS p (npi, first_name, middle_name, last_name, full_name, title, provider_kind, primary_taxonomy_code, cms_specialization, gender,
      phone_number, address, city, state, zip_code, county_fips, latitude, longitude, last_verified_at, confidence, source, updated_at)
    SELECT DISTINCT ON (s.npi) s.npi, s.first_name, s.middle_name, s.last_name, s.full_name, s.title, coalesce(sp.provider_kind, 'other'), s.primary_taxonomy_code,
      coalesce(sp.display_name, s.primary_taxonomy_code), s.gender, s.phone_number, s.address, s.city, s.state, s.zip_code, z.county_fips, z.latitude, z.longitude,
      coalesce(s.last_verified_at, current_date),
      round(greatest(0.35, least(0.99, 0.99 - (current_date - coalesce(s.last_verified_at, current_date)) / 1800.0))::numeric, 2), 'nppes', now()
    FROM {stage} s JOIN zips z ON z.zip = s.zip_code LEFT JOIN specialties sp ON sp.code = s.primary_taxonomy_code
    ORDER BY s.npi, s._line DESC
    ON CONFLICT (npi) DO UPDATE SET first_name = EXCLUDED.first_name, middle_name = EXCLUDED.middle_name, last_name = EXCLUDED.last_name, full_name = EXCLUDED.full_name,
      title = EXCLUDED.title, provider_kind = EXCLUDED.provider_kind, primary_taxonomy_code = EXCLUDED.primary_taxonomy_code, cms_specialization = EXCLUDED.cms_specialization,
      gender = EXCLUDED.gender, phone_number = EXCLUDED.phone_number, address = EXCLUDED.address, city = EXCLUDED.city, state = EXCLUDED.state, zip_code = EXCLUDED.zip_code,
      county_fips = EXCLUDED.county_fips, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude, last_verified_at = EXCLUDED.last_verified_at,
      confidence = EXCLUDED.confidence, source = 'nppes', updated_at = now()`,
}

const CODE_PREFERENCE = ['CPT', 'HCPCS', 'MS-DRG', 'APR-DRG', 'NDC', 'RC']

function priceSpec(facilityId: number, source: string, parse: (s: TextSource) => AsyncIterable<ParseResult<StandardCharge>>): ImporterSpec<StandardCharge> {
  return {
    stage:
      'procedure_code text, code_type text, description text, setting text, payer_name text, plan_name text, gross_charge numeric, discounted_cash numeric, negotiated_dollar numeric, negotiated_percentage numeric, negotiated_algorithm text, methodology text, median_amount numeric, p10_amount numeric, p90_amount numeric',
    columns: ['procedure_code', 'code_type', 'description', 'setting', 'payer_name', 'plan_name', 'gross_charge', 'discounted_cash', 'negotiated_dollar', 'negotiated_percentage', 'negotiated_algorithm', 'methodology', 'median_amount', 'p10_amount', 'p90_amount'],
    parse,
    map: (c) => {
      const code = [...c.codes].sort((a, b) => rank(a.type) - rank(b.type))[0]
      if (!code) return { reject: `no billing code for '${c.description.slice(0, 60)}'` }
      if (c.description === '') return { reject: `no description for code ${code.code}` }
      const numbers = [c.gross_charge, c.discounted_cash, c.negotiated_dollar, c.negotiated_percentage, c.median_amount, c.p10_amount, c.p90_amount]
      if (numbers.some((n) => n !== null && (!Number.isFinite(n) || Math.abs(n) >= 1e12))) return { reject: `amount out of range for code ${code.code}` }
      return {
        row: [code.code, code.type.toUpperCase(), c.description, c.setting ?? 'both', c.payer_name ?? '', c.plan_name ?? '', c.gross_charge, c.discounted_cash, c.negotiated_dollar, c.negotiated_percentage, c.negotiated_algorithm, c.methodology, c.median_amount, c.p10_amount, c.p90_amount],
      }
    },
    upsertSql: `INSERT INTO facility_prices (facility_id, procedure_code, code_type, description, setting, payer_name, plan_name, gross_charge, discounted_cash, negotiated_dollar,
        negotiated_percentage, negotiated_algorithm, methodology, median_amount, p10_amount, p90_amount, source, updated_at)
      SELECT DISTINCT ON (procedure_code, setting, payer_name, plan_name) ${facilityId}, procedure_code, code_type, description, setting, payer_name, plan_name, gross_charge, discounted_cash,
        negotiated_dollar, negotiated_percentage, negotiated_algorithm, methodology, median_amount, p10_amount, p90_amount, '${source}', now()
      FROM {stage} ORDER BY procedure_code, setting, payer_name, plan_name, _line DESC
      ON CONFLICT (facility_id, procedure_code, setting, payer_name, plan_name) DO UPDATE SET code_type = EXCLUDED.code_type, description = EXCLUDED.description,
        gross_charge = EXCLUDED.gross_charge, discounted_cash = EXCLUDED.discounted_cash, negotiated_dollar = EXCLUDED.negotiated_dollar,
        negotiated_percentage = EXCLUDED.negotiated_percentage, negotiated_algorithm = EXCLUDED.negotiated_algorithm, methodology = EXCLUDED.methodology,
        median_amount = EXCLUDED.median_amount, p10_amount = EXCLUDED.p10_amount, p90_amount = EXCLUDED.p90_amount, source = EXCLUDED.source, updated_at = now()`,
  }
}

function rank(type: string): number {
  const i = CODE_PREFERENCE.indexOf(type.toUpperCase())
  return i === -1 ? CODE_PREFERENCE.length : i
}

/** The first bytes of a file (format sniffing). */
async function head(file: string, bytes = 4096): Promise<string> {
  const input = openCounted(file)
  let text = ''
  for await (const chunk of input.source) {
    text += Buffer.from(chunk).toString('latin1')
    if (text.length >= bytes) break
  }
  return text
}

type FacilityIdentity = Pick<Row<'facilities'>, 'id' | 'name'>

/** The facility a price file belongs to: --facility (id, NPI or CCN), else the file's type 2 NPIs, else its exact name. */
async function resolveFacility(client: pg.ClientBase, header: PriceFileHeader | null, option: string | undefined): Promise<FacilityIdentity> {
  if (option) {
    const { rows } = await client.query<FacilityIdentity>('SELECT id, name FROM facilities WHERE id::text = $1 OR npi = $1 OR ccn = upper($1) ORDER BY id LIMIT 2', [option])
    if (!rows[0]) throw badRequest(`No facility with id, NPI or CCN ${option}`)
    if (rows.length > 1) throw badRequest(`${option} names more than one facility (an id and a CCN): use the facility's NPI or id`)
    return rows[0]
  }
  if (header && header.type_2_npis.length > 0) {
    const { rows } = await client.query<FacilityIdentity>('SELECT id, name FROM facilities WHERE npi = ANY($1::text[]) ORDER BY id LIMIT 1', [header.type_2_npis])
    if (rows[0]) return rows[0]
  }
  if (header?.hospital_name) {
    const { rows } = await client.query<FacilityIdentity>('SELECT id, name FROM facilities WHERE lower(name) = lower($1) ORDER BY id LIMIT 2', [header.hospital_name])
    if (rows.length === 1) return rows[0]!
  }
  throw badRequest(
    `Cannot tell which facility this price file belongs to (${header?.hospital_name ?? 'no hospital name'}; type 2 NPIs ${header?.type_2_npis.join(', ') || 'none'}): pass --facility <id|npi|ccn>`,
  )
}

/** The charges of a price file, after reading its header (the parsers yield it first). */
async function priceFile(client: pg.ClientBase, file: string, option: string | undefined): Promise<ImporterSpec<StandardCharge>> {
  const json = /\.json(\.gz)?$/i.test(file)
  const parser = (source: TextSource) => (json ? parsePriceFileJson(source) : parsePriceFileCsv(source))
  let header: PriceFileHeader | null = null
  for await (const item of parser(openCounted(file).source)) {
    if ('ok' in item && item.ok.kind === 'header') header = item.ok.header
    if ('ok' in item) break
  }
  const facility = await resolveFacility(client, header, option)
  const charges = async function* (source: TextSource): AsyncGenerator<ParseResult<StandardCharge>> {
    for await (const item of parser(source)) {
      if ('rejected' in item) yield item
      else if (item.ok.kind === 'charge') yield item.line === undefined ? { ok: item.ok.charge } : { ok: item.ok.charge, line: item.line }
    }
  }
  return priceSpec(facility.id, json ? 'cms_json' : 'cms_csv', charges)
}

/** The importers whose spec depends on the kind alone. */
const FILE_SPECS: Record<Exclude<ImportKind, 'census' | 'prices'>, ImporterSpec<never>> = {
  nppes: nppes as ImporterSpec<never>,
  nucc: nucc as ImporterSpec<never>,
  icd10cm: icd10cm as ImporterSpec<never>,
  hcpcs: hcpcs as ImporterSpec<never>,
  hospitals: hospitals as ImporterSpec<never>,
}

/**
 * Imports one official file: streamed through the data-kit parser, written in batches of idempotent upserts
 * (one transaction each), with progress on stderr and a summary of rows read, written, rejected (with reasons)
 * and skipped. Recorded in data_loads; the aggregates that depend on the table are refreshed.
 */
export async function runImport(pool: pg.Pool, kind: ImportKind, file: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const progress = new Progress(options.sink)
  const tally = new Tally(options.maxReasons ?? 20)
  const started = Date.now()
  const client = await pool.connect()
  const unforce = forceBulkMethod(client, options.method)
  let loadId: number | null = null
  try {
    let spec: ImporterSpec<never>
    let label: string = kind
    if (kind === 'census') {
      // the county population estimates, or the Gazetteer's county centroids (tab-delimited)
      const gaz = /^USPS\tGEOID/.test((await head(file)).replace(/^\uFEFF/, ''))
      spec = (gaz ? gazetteer : census) as ImporterSpec<never>
      label = gaz ? 'census (gazetteer)' : 'census (population)'
    } else if (kind === 'prices') {
      spec = (await priceFile(client, file, options.facility)) as ImporterSpec<never>
    } else {
      spec = FILE_SPECS[kind]
    }
    loadId = await startLoad(client, { kind: 'import', scale: kind, source_file: file })
    progress.line(`Importing ${label} from ${file}`)
    await runSpec(client, spec, file, tally, progress, label, options.batchSize ?? 5_000)
    await mergePendingIndexEntries(client)
    if (kind === 'icd10cm' || kind === 'hcpcs') await refreshSearchWords(client)
    if (kind === 'nppes') await refreshProviderPoints(client)
    if (kind === 'nppes' || kind === 'hospitals' || kind === 'prices') await client.query(`ANALYZE ${kind === 'nppes' ? 'providers' : kind === 'hospitals' ? 'facilities' : 'facility_prices'}`)
    // Price Check's candidates hold the listed codes and the facilities' points (docs/decisions/0065)
    if (kind === 'hospitals' || kind === 'prices') await refreshPriceCodePoints(client)
    const counts = { read: tally.read, written: tally.written, rejected: tally.rejected, skipped: tally.skipped }
    await finishLoad(client, loadId, counts)
    const summary: ImportSummary = {
      load_id: loadId,
      kind,
      file,
      ...counts,
      reasons: tally.reasons,
      skipped_reasons: tally.skippedReasons,
      seconds: (Date.now() - started) / 1000,
    }
    progress.line(`Read ${formatCount(tally.read)}, written ${formatCount(tally.written)}, rejected ${formatCount(tally.rejected)}, skipped ${formatCount(tally.skipped)} in ${formatSeconds(Date.now() - started)}.`)
    return summary
  } catch (error) {
    if (loadId !== null) await failLoad(client, loadId, { read: tally.read, written: tally.written, rejected: tally.rejected }, error).catch(() => undefined)
    throw error
  } finally {
    unforce()
    client.release()
  }
}
