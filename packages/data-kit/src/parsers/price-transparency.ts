import { readCsv } from '../io/csv.ts'
import { streamJsonObject } from '../io/json-stream.ts'
import type { TextEncoding, TextSource } from '../io/text-source.ts'
import { reject, type ParseResult } from './result.ts'
import { decimal, isoDate } from './values.ts'

/** The general data elements at the top of a CMS hospital price file (45 CFR 180.50). */
export interface PriceFileHeader {
  hospital_name: string | null
  last_updated_on: string | null
  version: string | null
  location_names: string[]
  hospital_addresses: string[]
  license_number: string | null
  license_state: string | null
  type_2_npis: string[]
}

export type ChargeSetting = 'inpatient' | 'outpatient' | 'both'

/** One standard charge for one item, for one payer and plan (payer null: the charge row without payer rates). */
export interface StandardCharge {
  description: string
  codes: { code: string; type: string }[]
  modifiers: string[]
  setting: ChargeSetting | null
  drug_unit: number | null
  drug_unit_type: string | null
  gross_charge: number | null
  discounted_cash: number | null
  minimum: number | null
  maximum: number | null
  payer_name: string | null
  plan_name: string | null
  negotiated_dollar: number | null
  negotiated_percentage: number | null
  negotiated_algorithm: string | null
  methodology: string | null
  /** v3 allowed-amount statistics (when a payer's charge is not a dollar amount). */
  median_amount: number | null
  p10_amount: number | null
  p90_amount: number | null
  count: string | null
  /** v2 only. */
  estimated_amount: number | null
  notes: string | null
}

export type PriceFileItem = { kind: 'header'; header: PriceFileHeader } | { kind: 'charge'; charge: StandardCharge }

const SETTINGS = new Set(['inpatient', 'outpatient', 'both'])
const PAYER_FIELDS = [
  'negotiated_dollar',
  'negotiated_percentage',
  'negotiated_algorithm',
  'methodology',
  'median_amount',
  '10th_percentile',
  '90th_percentile',
  'count',
  'estimated_amount',
  'additional_payer_notes',
] as const
type PayerField = (typeof PAYER_FIELDS)[number]

const norm = (name: string) =>
  name
    .split('|')
    .map((p) => p.trim())
    .join('|')
const splitList = (s: string) =>
  s
    .split('|')
    .map((p) => p.trim())
    .filter((p) => p !== '')

function headerFrom(names: string[], values: string[]): PriceFileHeader {
  const get = (name: string) => {
    const i = names.findIndex((n) => norm(n).toLowerCase() === name)
    return i === -1 ? '' : (values[i] ?? '').trim()
  }
  const licenseIndex = names.findIndex((n) => norm(n).toLowerCase().startsWith('license_number'))
  const licenseName = licenseIndex === -1 ? '' : norm(names[licenseIndex] ?? '')
  const updated = get('last_updated_on')
  return {
    hospital_name: get('hospital_name') || null,
    last_updated_on: isoDate(updated) ?? (updated || null),
    version: get('version') || null,
    location_names: splitList(get('location_name') || get('hospital_location')),
    hospital_addresses: splitList(get('hospital_address')),
    license_number: licenseIndex === -1 ? null : (values[licenseIndex] ?? '').trim() || null,
    license_state: licenseName.split('|')[1] || null,
    type_2_npis: splitList(get('type_2_npi')),
  }
}

interface Layout {
  column: Map<string, number>
  codeSlots: { code: number; type: number; n: string }[]
  /** Wide format: payer|plan → field → column. Empty in the tall format. */
  payers: Map<string, { payer: string; plan: string; fields: Map<PayerField, number> }>
}

function layoutOf(names: string[]): Layout {
  const column = new Map<string, number>()
  const codeSlots: Layout['codeSlots'] = []
  const payers: Layout['payers'] = new Map()
  names.forEach((raw, i) => {
    const parts = norm(raw).split('|')
    const head = (parts[0] ?? '').toLowerCase()
    const last = (parts[parts.length - 1] ?? '').toLowerCase()
    if (head === 'code' && parts.length === 2) {
      codeSlots.push({ code: i, type: -1, n: parts[1] ?? '' })
      return
    }
    if (head === 'code' && parts.length === 3 && last === 'type') {
      const slot = codeSlots.find((s) => s.n === parts[1])
      if (slot) slot.type = i
      else codeSlots.push({ code: -1, type: i, n: parts[1] ?? '' })
      return
    }
    // wide: standard_charge|payer|plan|field, or median_amount|payer|plan (and the other per-payer columns)
    let payer: string | undefined, plan: string | undefined, field: string | undefined
    if (head === 'standard_charge' && parts.length === 4) [payer, plan, field] = [parts[1], parts[2], last]
    else if (parts.length === 3 && (PAYER_FIELDS as readonly string[]).includes(head)) [payer, plan, field] = [parts[1], parts[2], head]
    if (payer !== undefined && plan !== undefined && field && (PAYER_FIELDS as readonly string[]).includes(field)) {
      const key = `${payer}|${plan}`
      let group = payers.get(key)
      if (!group) payers.set(key, (group = { payer, plan, fields: new Map() }))
      group.fields.set(field as PayerField, i)
      return
    }
    column.set(norm(raw).toLowerCase(), i)
  })
  return { column, codeSlots, payers }
}

type Base = Omit<
  StandardCharge,
  | 'payer_name'
  | 'plan_name'
  | 'negotiated_dollar'
  | 'negotiated_percentage'
  | 'negotiated_algorithm'
  | 'methodology'
  | 'median_amount'
  | 'p10_amount'
  | 'p90_amount'
  | 'count'
  | 'estimated_amount'
>

function numberField(label: string, raw: string, errors: string[]): number | null {
  const n = decimal(raw)
  if (n === undefined) {
    errors.push(`${label} is not a number: '${raw}'`)
    return null
  }
  return n
}

function payerCharge(
  base: Base,
  payer: string | null,
  plan: string | null,
  get: (f: PayerField) => string,
  errors: string[],
): StandardCharge {
  const charge: StandardCharge = {
    ...base,
    payer_name: payer,
    plan_name: plan,
    negotiated_dollar: numberField('negotiated_dollar', get('negotiated_dollar'), errors),
    negotiated_percentage: numberField('negotiated_percentage', get('negotiated_percentage'), errors),
    negotiated_algorithm: get('negotiated_algorithm') || null,
    methodology: get('methodology') || null,
    median_amount: numberField('median_amount', get('median_amount'), errors),
    p10_amount: numberField('10th_percentile', get('10th_percentile'), errors),
    p90_amount: numberField('90th_percentile', get('90th_percentile'), errors),
    count: get('count') || null,
    estimated_amount: numberField('estimated_amount', get('estimated_amount'), errors),
    notes: get('additional_payer_notes') || base.notes,
  }
  if (payer !== null && charge.negotiated_dollar === null && charge.negotiated_percentage === null && charge.negotiated_algorithm === null)
    errors.push(`payer ${payer} ${plan ?? ''}: no negotiated dollar, percentage or algorithm`.replace(/ +:/, ':'))
  return charge
}

function checkBase(base: Base, errors: string[]): void {
  if (base.description === '') errors.push('missing description')
  if (base.codes.length === 0 && base.modifiers.length === 0) errors.push('no code and no modifier')
}

/**
 * CMS hospital price transparency CSV, v2.x or v3.x, tall or wide (the layout is read from the column headers).
 * Rows 1-2 are the general data elements (yielded first as a 'header' item), row 3 the column headers. Each
 * data row gives one charge per payer and plan (tall: one; wide: one per payer/plan with values) or one
 * payer-less charge. The v2 wide example is published in cp1252: pass `encoding` for such files.
 */
export async function* parsePriceFileCsv(
  source: TextSource,
  options: { encoding?: TextEncoding } = {},
): AsyncGenerator<ParseResult<PriceFileItem>> {
  let generalNames: string[] | undefined
  let layout: Layout | undefined
  for await (const item of readCsv(source, { encoding: options.encoding ?? 'utf-8' })) {
    if ('error' in item) {
      yield reject(item.error.line, item.error.reason, item.error.text)
      continue
    }
    const { fields, line, text } = item.record
    if (!generalNames) {
      generalNames = fields
      if (!fields.some((f) => norm(f).toLowerCase() === 'hospital_name')) {
        yield reject(line, 'not a CMS price file: row 1 has no hospital_name', text)
        return
      }
      continue
    }
    if (!layout) {
      if (fields.some((f) => norm(f).toLowerCase() === 'description')) {
        // A file without the value row: go straight to the column headers.
        yield { ok: { kind: 'header', header: headerFrom(generalNames, []) } }
        layout = layoutOf(fields)
        continue
      }
      yield { ok: { kind: 'header', header: headerFrom(generalNames, fields) } }
      layout = { column: new Map(), codeSlots: [], payers: new Map() }
      continue
    }
    if (layout.column.size === 0 && layout.codeSlots.length === 0) {
      layout = layoutOf(fields)
      if (!layout.column.has('description')) {
        yield reject(line, 'row 3 must hold the column headers (no description column)', text)
        return
      }
      continue
    }
    const L = layout
    const col = (name: string) => {
      const i = L.column.get(name)
      return i === undefined ? '' : (fields[i] ?? '').trim()
    }
    const errors: string[] = []
    const codes: { code: string; type: string }[] = []
    for (const slot of L.codeSlots) {
      const code = slot.code === -1 ? '' : (fields[slot.code] ?? '').trim()
      const type = slot.type === -1 ? '' : (fields[slot.type] ?? '').trim()
      if (code === '' && type === '') continue
      if (code === '' || type === '') errors.push(`code|${slot.n} needs both a code and a type`)
      else codes.push({ code, type: type.toUpperCase() })
    }
    const setting = col('setting').toLowerCase()
    if (setting !== '' && !SETTINGS.has(setting)) errors.push(`setting must be inpatient, outpatient or both, got '${col('setting')}'`)
    const base: Base = {
      description: col('description'),
      codes,
      modifiers: splitList(col('modifiers')),
      setting: setting === '' ? null : (setting as ChargeSetting),
      drug_unit: numberField('drug_unit_of_measurement', col('drug_unit_of_measurement'), errors),
      drug_unit_type: col('drug_type_of_measurement') || null,
      gross_charge: numberField('standard_charge|gross', col('standard_charge|gross'), errors),
      discounted_cash: numberField('standard_charge|discounted_cash', col('standard_charge|discounted_cash'), errors),
      minimum: numberField('standard_charge|min', col('standard_charge|min'), errors),
      maximum: numberField('standard_charge|max', col('standard_charge|max'), errors),
      notes: col('additional_generic_notes') || null,
    }
    checkBase(base, errors)
    if (errors.length > 0) {
      yield reject(line, errors.join('; '), text)
      continue
    }
    const charges: { charge: StandardCharge; errors: string[] }[] = []
    if (L.payers.size === 0) {
      const payer = col('payer_name') || null
      const tallField = (f: PayerField) => {
        const name =
          f === 'median_amount' ||
          f === '10th_percentile' ||
          f === '90th_percentile' ||
          f === 'count' ||
          f === 'estimated_amount' ||
          f === 'additional_payer_notes'
            ? f
            : `standard_charge|${f}`
        return col(name)
      }
      const errs: string[] = []
      charges.push({ charge: payerCharge(base, payer, payer === null ? null : col('plan_name') || null, tallField, errs), errors: errs })
    } else {
      for (const group of L.payers.values()) {
        const get = (f: PayerField) => {
          const i = group.fields.get(f)
          return i === undefined ? '' : (fields[i] ?? '').trim()
        }
        // methodology alone (the wide example repeats it for every payer) does not make a rate
        if (!PAYER_FIELDS.some((f) => f !== 'methodology' && get(f) !== '')) continue
        const errs: string[] = []
        charges.push({ charge: payerCharge(base, group.payer, group.plan, get, errs), errors: errs })
      }
      if (charges.length === 0) charges.push({ charge: payerCharge(base, null, null, () => '', []), errors: [] })
    }
    for (const c of charges) {
      if (c.errors.length > 0) yield reject(line, c.errors.join('; '), text)
      else yield { ok: { kind: 'charge', charge: c.charge }, line }
    }
  }
}

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | null => (typeof v === 'string' ? v.trim() || null : typeof v === 'number' ? String(v) : null)
function num(label: string, v: unknown, errors: string[]): number | null {
  if (v === undefined || v === null || v === '') return null
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string') return numberField(label, v, errors)
  errors.push(`${label} is not a number`)
  return null
}

/**
 * CMS hospital price transparency JSON (v3.x; v2.x files have the same charge structure). The
 * standard_charge_information array is streamed item by item, so file size does not matter; the header is
 * yielded when the array starts (the CMS schema puts the general data elements first) or at the end.
 */
export async function* parsePriceFileJson(source: TextSource): AsyncGenerator<ParseResult<PriceFileItem>> {
  const general: Json = {}
  let headerSent = false
  const header = (): PriceFileHeader => {
    const license = isObject(general.license_information) ? general.license_information : {}
    const list = (v: unknown) =>
      Array.isArray(v) ? v.map((x) => str(x)).filter((x): x is string => x !== null) : typeof v === 'string' ? splitList(v) : []
    const updated = str(general.last_updated_on) ?? ''
    return {
      hospital_name: str(general.hospital_name),
      last_updated_on: isoDate(updated) ?? (updated || null),
      version: str(general.version),
      location_names: list(general.location_name ?? general.hospital_location),
      hospital_addresses: list(general.hospital_address),
      license_number: str(license.license_number),
      license_state: str(license.state),
      type_2_npis: list(general.type_2_npi),
    }
  }
  for await (const event of streamJsonObject(source, ['standard_charge_information'])) {
    if (event.kind === 'error') {
      yield reject(event.line, event.reason)
      continue
    }
    if (event.kind === 'field') {
      general[event.key] = event.value
      continue
    }
    if (event.kind === 'array-start') {
      if (!headerSent) yield { ok: { kind: 'header', header: header() } }
      headerSent = true
      continue
    }
    yield* chargesOfItem(event.value, event.line, event.index)
  }
  if (!headerSent) yield { ok: { kind: 'header', header: header() } }
}

function* chargesOfItem(item: unknown, line: number, index: number): Generator<ParseResult<PriceFileItem>> {
  const where = `standard_charge_information[${index}]`
  if (!isObject(item)) {
    yield reject(line, `${where} is not an object`)
    return
  }
  const errors: string[] = []
  const codes = (Array.isArray(item.code_information) ? item.code_information : []).flatMap((c) => {
    const code = isObject(c) ? str(c.code) : null
    const type = isObject(c) ? str(c.type) : null
    if (!code || !type) {
      errors.push('code_information entries need a code and a type')
      return []
    }
    return [{ code, type: type.toUpperCase() }]
  })
  const drug = isObject(item.drug_information) ? item.drug_information : {}
  const description = str(item.description) ?? ''
  const standardCharges = Array.isArray(item.standard_charges) ? item.standard_charges : []
  if (standardCharges.length === 0) errors.push('no standard_charges')
  const drugUnit = num('drug_information.unit', drug.unit, errors)
  if (description === '') errors.push('missing description')
  if (codes.length === 0) errors.push('no code_information')
  if (errors.length > 0) {
    yield reject(line, `${where}: ${[...new Set(errors)].join('; ')}`)
    return
  }
  for (const sc of standardCharges) {
    const errs: string[] = []
    if (!isObject(sc)) {
      yield reject(line, `${where}: a standard_charges entry is not an object`)
      continue
    }
    const setting = (str(sc.setting) ?? '').toLowerCase()
    if (setting !== '' && !SETTINGS.has(setting)) errs.push(`setting must be inpatient, outpatient or both, got '${setting}'`)
    const base: Base = {
      description,
      codes,
      modifiers: [],
      setting: setting === '' ? null : (setting as ChargeSetting),
      drug_unit: drugUnit,
      drug_unit_type: str(drug.type),
      gross_charge: num('gross_charge', sc.gross_charge, errs),
      discounted_cash: num('discounted_cash', sc.discounted_cash, errs),
      minimum: num('minimum', sc.minimum, errs),
      maximum: num('maximum', sc.maximum, errs),
      notes: str(sc.additional_generic_notes),
    }
    if (errs.length > 0) {
      yield reject(line, `${where}: ${errs.join('; ')}`)
      continue
    }
    const payers = Array.isArray(sc.payers_information) ? sc.payers_information : []
    if (payers.length === 0) {
      yield { ok: { kind: 'charge', charge: payerCharge(base, null, null, () => '', []) }, line }
      continue
    }
    for (const p of payers) {
      const perrs: string[] = []
      const info = isObject(p) ? p : {}
      const payer = str(info.payer_name)
      if (!payer) {
        yield reject(line, `${where}: payers_information entry without payer_name`)
        continue
      }
      const charge: StandardCharge = {
        ...base,
        payer_name: payer,
        plan_name: str(info.plan_name),
        negotiated_dollar: num('standard_charge_dollar', info.standard_charge_dollar, perrs),
        negotiated_percentage: num('standard_charge_percentage', info.standard_charge_percentage, perrs),
        negotiated_algorithm: str(info.standard_charge_algorithm),
        methodology: str(info.methodology),
        median_amount: num('median_amount', info.median_amount, perrs),
        p10_amount: num('10th_percentile', info['10th_percentile'], perrs),
        p90_amount: num('90th_percentile', info['90th_percentile'], perrs),
        count: str(info.count),
        estimated_amount: num('estimated_amount', info.estimated_amount, perrs),
        notes: str(info.additional_payer_notes) ?? base.notes,
      }
      if (charge.negotiated_dollar === null && charge.negotiated_percentage === null && charge.negotiated_algorithm === null)
        perrs.push(`payer ${payer}: no negotiated dollar, percentage or algorithm`)
      if (perrs.length > 0) yield reject(line, `${where}: ${perrs.join('; ')}`)
      else yield { ok: { kind: 'charge', charge }, line }
    }
  }
}
