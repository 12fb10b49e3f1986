/**
 * The TiC reader's throughput (issue 37): generates an in-network-rates file of the size asked (gzip), then times
 * `gzip -dc` alone on it and the importer's streaming reader (decompression, tokenizer, CMS schema checks, records),
 * and samples the process's RSS. Prints measurements only; never passes or fails.
 *
 *   npx tsx bench/tic.ts [--mb 64] [--plain] [--keep] [--dir /tmp]
 *       --mb: uncompressed size of the generated file in MB (the figure: --mb 2048); --plain: no gzip
 *
 * The database side (stage, resolution SQL) is not part of this figure: `data import tic` prints its own MB/s.
 */
import { spawnSync } from 'node:child_process'
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createGzip } from 'node:zlib'
import { readTic } from '../apps/server/src/data/tic/reader.ts'
import { openSource } from '../apps/server/src/data/tic/source.ts'

const NEGOTIATED_TYPES = ['negotiated', 'derived', 'fee schedule', 'percentage', 'per diem'] as const

/** A deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface GeneratedFile {
  file: string
  textBytes: number
  fileBytes: number
  items: number
  prices: number
}

/** Writes an in-network file of about `megabytes` MB of JSON: 2,000 provider groups, CPT items of 40 rates of 3 prices. */
export async function generateInNetworkFile(file: string, megabytes: number, gzip: boolean): Promise<GeneratedFile> {
  const rand = random(37)
  const out = createWriteStream(file, { highWaterMark: 1 << 20 })
  const gz = gzip ? createGzip({ level: 1 }) : null
  if (gz) gz.pipe(out)
  const sink = gz ?? out
  let textBytes = 0
  let buffer = ''
  const write = async (text: string) => {
    buffer += text
    if (buffer.length < 1 << 20) return
    const chunk = buffer
    buffer = ''
    textBytes += Buffer.byteLength(chunk)
    if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', () => resolve()))
  }
  const groups = 2000
  await write(
    '{"reporting_entity_name":"Bench Health","reporting_entity_type":"health insurance issuer","plan_name":"Bench PPO","plan_id_type":"hios","plan_id":"12345",' +
      '"plan_market_type":"group","issuer_name":"Bench Health","last_updated_on":"2026-11-01","version":"2.0.0","provider_references":[',
  )
  for (let g = 1; g <= groups; g++) {
    const npis = Array.from({ length: 5 }, () => 1_000_000_000 + Math.floor(rand() * 8_999_999_999))
    await write(
      `${g > 1 ? ',' : ''}{"provider_group_id":${g},"network_name":["Bench Network"],"provider_groups":[{"npi":[${npis.join(',')}],"tin":{"type":"ein","value":"${String(10 + (g % 89)).padStart(2, '0')}-${String(g).padStart(7, '0')}","business_name":"Group ${g}"}}]}`,
    )
  }
  await write('],"in_network":[')
  const target = megabytes * 1e6
  let items = 0
  let prices = 0
  while (textBytes + buffer.length < target) {
    const code = String(10000 + (items % 89999))
    let item = `${items > 0 ? ',' : ''}{"negotiation_arrangement":"ffs","name":"Procedure ${code}","billing_code_type":"CPT","billing_code_type_version":"2026","billing_code":"${code}","description":"Bench procedure ${code}","negotiated_rates":[`
    for (let r = 0; r < 40; r++) {
      const refs = [1 + Math.floor(rand() * groups), 1 + Math.floor(rand() * groups)]
      item += `${r > 0 ? ',' : ''}{"provider_references":[${refs.join(',')}],"negotiated_prices":[`
      for (let p = 0; p < 3; p++) {
        const type = NEGOTIATED_TYPES[Math.floor(rand() * NEGOTIATED_TYPES.length)]!
        const rate = type === 'percentage' ? (40 + rand() * 60).toFixed(1) : (20 + rand() * 5000).toFixed(2)
        item +=
          p % 2 === 0
            ? `${p > 0 ? ',' : ''}{"negotiated_type":"${type}","negotiated_rate":${rate},"expiration_date":"9999-12-31","service_code":["11","22"],"billing_class":"professional","setting":"outpatient","billing_code_modifier":["26"]}`
            : `,{"negotiated_type":"${type}","negotiated_rate":${rate},"expiration_date":"9999-12-31","billing_class":"institutional","setting":"both"}`
        prices++
      }
      item += ']}'
    }
    await write(`${item}]}`)
    items++
  }
  await write(']}')
  textBytes += Buffer.byteLength(buffer)
  sink.end(buffer)
  await new Promise<void>((resolve, reject) => out.on('finish', () => resolve()).on('error', reject))
  return { file, textBytes, fileBytes: statSync(file).size, items, prices }
}

export interface TicBenchResult {
  generated: GeneratedFile
  gzipSeconds: number | null
  readSeconds: number
  records: { items: number; prices: number; groups: number }
  peakRssMiB: number
}

export async function benchTic(options: { megabytes: number; gzip: boolean; dir: string; keep: boolean }): Promise<TicBenchResult> {
  const file = path.join(options.dir, `bench-in-network.json${options.gzip ? '.gz' : ''}`)
  const generated = await generateInNetworkFile(file, options.megabytes, options.gzip)
  try {
    let gzipSeconds: number | null = null
    if (options.gzip) {
      const started = process.hrtime.bigint()
      const result = spawnSync('sh', ['-c', `gzip -dc '${file}' > /dev/null`])
      if (result.status === 0) gzipSeconds = Number(process.hrtime.bigint() - started) / 1e9
    }
    global.gc?.()
    let peak = process.memoryUsage().rss
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100)
    const records = { items: 0, prices: 0, groups: 0 }
    const started = process.hrtime.bigint()
    const opened = await openSource({ name: file, path: file }, Number.MAX_SAFE_INTEGER)
    await readTic(opened.stream, (record) => {
      if (record.kind === 'item') records.items++
      else if (record.kind === 'rate') records.prices += record.rate.negotiated_prices.length
      else if (record.kind === 'provider_reference') records.groups++
    })
    const readSeconds = Number(process.hrtime.bigint() - started) / 1e9
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage().rss)
    return { generated, gzipSeconds, readSeconds, records, peakRssMiB: Math.max(peak, process.resourceUsage().maxRSS * 1024) / (1 << 20) }
  } finally {
    if (!options.keep) rmSync(file, { force: true })
  }
}

export function formatTicBench(r: TicBenchResult): string {
  const mb = r.generated.textBytes / 1e6
  const fmt = new Intl.NumberFormat('en-US')
  return [
    `TiC in-network file: ${mb.toFixed(0)} MB of JSON (${(r.generated.fileBytes / 1e6).toFixed(0)} MB on disk), ${fmt.format(r.generated.items)} items, ${fmt.format(r.generated.prices)} negotiated prices, ${fmt.format(r.records.groups)} provider groups`,
    r.gzipSeconds === null
      ? '  gzip -dc: -'
      : `  gzip -dc alone:     ${r.gzipSeconds.toFixed(1)} s  (${(mb / r.gzipSeconds).toFixed(0)} MB/s of JSON)`,
    `  reader (gunzip + tokenizer + schema checks): ${r.readSeconds.toFixed(1)} s  ${(mb / r.readSeconds).toFixed(1)} MB/s  ${fmt.format(Math.round(r.records.prices / r.readSeconds))} rates/s  (${(r.readSeconds / (r.gzipSeconds ?? r.readSeconds)).toFixed(1)}x gzip -dc)`,
    `  peak RSS: ${r.peakRssMiB.toFixed(0)} MiB`,
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { mb: { type: 'string' }, plain: { type: 'boolean' }, keep: { type: 'boolean' }, dir: { type: 'string' } },
  })
  const megabytes = values.mb === undefined ? 64 : Number(values.mb)
  if (!Number.isFinite(megabytes) || megabytes <= 0) throw new Error('--mb must be a positive number')
  const dir = mkdtempSync(path.join(values.dir ?? tmpdir(), 'citrus-tic-bench-'))
  try {
    const result = await benchTic({ megabytes, gzip: values.plain !== true, dir, keep: values.keep === true })
    console.log(formatTicBench(result))
  } finally {
    if (values.keep !== true) rmSync(dir, { recursive: true, force: true })
  }
}
