import type { z } from 'zod'
import { JsonPositionError, JsonStream, type JsonStreamLimits, type PathItem, type Position } from './json-stream.js'
import {
  allowedAmountSchema,
  headerSchema,
  inNetworkHeadSchema,
  negotiatedRateSchema,
  outOfNetworkHeadSchema,
  providerReferenceSchema,
  reportingStructureSchema,
  type AllowedAmount,
  type InNetworkHead,
  type NegotiatedRate,
  type OutOfNetworkHead,
  type ProviderReference,
  type ReportingStructure,
  type TicHeader,
} from './schema.js'

/**
 * Reads one Transparency-in-Coverage file as a stream (issue 37): a table of contents, an in-network-rates file
 * or an allowed-amounts file, told apart by their top-level arrays. Each provider reference, negotiated_rates
 * element, allowed_amounts element and reporting_structure element is captured alone and checked against the CMS
 * schema (schema.ts); an in_network / out_of_network item's own fields (billing code, arrangement, bundled codes)
 * are gathered as they pass and handed over when the item closes, after its rates (the importer joins them by
 * item number), so neither the order of the keys nor the size of an item matters. A syntax error or a schema
 * violation stops the read with its line, column and JSON path (JsonPositionError).
 */

export type TicKind = 'in_network' | 'allowed_amounts' | 'table_of_contents'

export type TicRecord =
  | { kind: 'provider_reference'; ref: ProviderReference }
  | { kind: 'rate'; item: number; rate: NegotiatedRate }
  | { kind: 'item'; item: number; head: InNetworkHead }
  | { kind: 'oon_item'; item: number; head: OutOfNetworkHead }
  | { kind: 'allowed'; item: number; amount: AllowedAmount }
  | { kind: 'structure'; structure: ReportingStructure }

export interface TicReadResult {
  kind: TicKind
  header: TicHeader
  /** characters of text read */
  chars: number
}

const KIND_OF_KEY: Record<string, TicKind> = {
  in_network: 'in_network',
  provider_references: 'in_network',
  out_of_network: 'allowed_amounts',
  reporting_structure: 'table_of_contents',
}

/** What is captured whole: one element of the arrays the importer writes row by row, and small code lists. */
function captureRule(path: readonly PathItem[]): boolean {
  const top = path[0]
  if (path.length === 2) return top === 'provider_references' || top === 'reporting_structure'
  if (path.length === 3) return top === 'in_network' && (path[2] === 'bundled_codes' || path[2] === 'covered_services')
  if (path.length === 4) return (top === 'in_network' && path[2] === 'negotiated_rates') || (top === 'out_of_network' && path[2] === 'allowed_amounts')
  return false
}

function checked<T>(schema: z.ZodType<T>, value: unknown, start: Position, path: readonly PathItem[]): T {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const issuePath = issue.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number')
  throw new JsonPositionError(`does not match the CMS schema: ${issue.message}`, start, [...path, ...issuePath])
}

export async function readTic(
  source: AsyncIterable<Uint8Array | string>,
  handle: (record: TicRecord) => Promise<void> | void,
  limits: Partial<JsonStreamLimits> = {},
): Promise<TicReadResult> {
  const json = new JsonStream(captureRule, limits)
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const header: Record<string, unknown> = {}
  const found: { kind: TicKind | null } = { kind: null }
  let head: Record<string, unknown> | null = null
  let headStart: Position | null = null
  let chars = 0

  const setKind = (key: string, start: Position) => {
    const k = KIND_OF_KEY[key]
    if (!k) return
    if (found.kind !== null && found.kind !== k) throw new JsonPositionError(`'${key}' in a ${found.kind.replaceAll('_', ' ')} file`, start, [key])
    found.kind = k
  }

  const drainEvents = async () => {
    for (const event of json.drain()) {
      const path = event.path
      if (event.kind === 'open') {
        if (path.length === 1) {
          setKind(path[0] as string, event.start)
          if (KIND_OF_KEY[path[0] as string] && event.container !== 'array')
            throw new JsonPositionError(`'${String(path[0])}' must be an array`, event.start, path)
        }
        if (path.length === 0 && event.container !== 'object') throw new JsonPositionError('the file must hold one JSON object', event.start, path)
        if (path.length === 2 && (path[0] === 'in_network' || path[0] === 'out_of_network')) {
          head = {}
          headStart = event.start
        }
        continue
      }
      if (event.kind === 'close') {
        if (path.length === 2 && head !== null && headStart !== null) {
          const item = path[1] as number
          if (path[0] === 'in_network') await handle({ kind: 'item', item, head: checked(inNetworkHeadSchema, head, headStart, path) })
          else if (path[0] === 'out_of_network') await handle({ kind: 'oon_item', item, head: checked(outOfNetworkHeadSchema, head, headStart, path) })
          head = null
        }
        continue
      }
      // a value: a top-level field, an item's field, or a captured piece
      if (path.length === 0) throw new JsonPositionError('the file must hold one JSON object', event.start, path)
      const top = path[0] as string
      if (path.length === 1) {
        setKind(top, event.start)
        if (KIND_OF_KEY[top]) throw new JsonPositionError(`'${top}' must be an array`, event.start, path)
        header[top] = event.value
      } else if (top === 'provider_references' && path.length === 2) {
        await handle({ kind: 'provider_reference', ref: checked(providerReferenceSchema, event.value, event.start, path) })
      } else if (top === 'reporting_structure' && path.length === 2) {
        await handle({ kind: 'structure', structure: checked(reportingStructureSchema, event.value, event.start, path) })
      } else if (path.length === 2 && (top === 'in_network' || top === 'out_of_network')) {
        throw new JsonPositionError(`each element of '${top}' must be an object`, event.start, path)
      } else if (path.length === 3 && head !== null && (top === 'in_network' || top === 'out_of_network')) {
        head[path[2] as string] = event.value
      } else if (path.length === 4 && top === 'in_network' && path[2] === 'negotiated_rates') {
        await handle({ kind: 'rate', item: path[1] as number, rate: checked(negotiatedRateSchema, event.value, event.start, path) })
      } else if (path.length === 4 && top === 'out_of_network' && path[2] === 'allowed_amounts') {
        await handle({ kind: 'allowed', item: path[1] as number, amount: checked(allowedAmountSchema, event.value, event.start, path) })
      }
    }
  }

  for await (const chunk of source) {
    let text: string
    try {
      text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    } catch {
      throw new JsonPositionError('the file is not UTF-8 text', json.position(), json.path())
    }
    chars += text.length
    json.write(text)
    await drainEvents()
  }
  json.end()
  await drainEvents()
  const end = json.position()
  const kind = found.kind
  if (kind === null) throw new JsonPositionError('neither in_network, out_of_network nor reporting_structure: not a Transparency-in-Coverage file', end, [])
  return { kind, header: checked(headerSchema, header, end, []), chars }
}
