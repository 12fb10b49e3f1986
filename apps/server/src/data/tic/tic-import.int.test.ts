import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../../test/helpers.ts'
import { runCli } from '../../cli/main.ts'
import { REPO_ROOT } from '../../runtime.ts'
import { silentSink } from '../progress.ts'
import { runTicImport, type TicImportOptions } from './import.ts'

const TIC_EXAMPLES = path.resolve(REPO_ROOT, '../shared/data/tic-price-transparency/examples')

interface Json {
  [key: string]: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * The oracle: the rate rows an in-network file should give, computed from the parsed JSON (JSON.parse, not the
 * importer's reader): each negotiated price × each (NPI, TIN) of the provider groups it refers to.
 */
function expectedRates(doc: Json): { npi: string | null; tin: string; code: string; type: string; rate: number; billing_class: string }[] {
  const groups = new Map<number, Json[]>()
  for (const ref of doc.provider_references ?? []) groups.set(ref.provider_group_id, ref.provider_groups)
  const out: ReturnType<typeof expectedRates> = []
  for (const item of doc.in_network)
    for (const rate of item.negotiated_rates)
      for (const price of rate.negotiated_prices)
        for (const id of rate.provider_references ?? [])
          for (const group of groups.get(id) ?? [])
            for (const npi of group.npi)
              out.push({ npi: npi === 0 ? null : String(npi), tin: group.tin.value, code: item.billing_code, type: price.negotiated_type, rate: price.negotiated_rate, billing_class: price.billing_class })
  return out
}

const sortRates = <T extends { npi: string | null; tin: string; code: string; type: string; rate: number; billing_class: string }>(rows: T[]) =>
  rows.map((r) => `${r.npi}|${r.tin}|${r.code}|${r.type}|${r.rate}|${r.billing_class}`).sort()

// the CMS examples live beside the repository (../shared/data, SOURCES.md §7): skipped when absent
describe.skipIf(!existsSync(TIC_EXAMPLES))('data import tic: the CMS examples, tables of contents, malformed files, re-imports', () => {
  const ctx = useTestDatabase({ dataset: true })
  let dir: string
  const run = (target: string, options: TicImportOptions = {}) => runTicImport(ctx.db.pool, target, { sink: silentSink, ...options })
  const rows = async <T>(sql: string, params: unknown[] = []) => (await ctx.db.pool.query(sql, params)).rows as T[]
  const read = (name: string) => JSON.parse(readFileSync(path.join(TIC_EXAMPLES, name), 'utf8')) as Json
  const insurersBefore: string[] = []

  /** an example copied into this suite's directory with one more line break: same content, a digest of its own */
  const example = (name: string) => {
    const copy = path.join(dir, 'examples', name)
    writeFileSync(copy, `${readFileSync(path.join(TIC_EXAMPLES, name), 'utf8')}\n`)
    return copy
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'citrus-tic-'))
    mkdirSync(path.join(dir, 'examples'))
    insurersBefore.push(...(await rows<{ name: string }>('SELECT name FROM insurers')).map((r) => r.name))
  })
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    // leave the shared test database as it was: the files (cascade) and the insurers the imports added
    await ctx.db.pool.query(`DELETE FROM tic_files WHERE starts_with(source, $1)`, [dir])
    await ctx.db.pool.query(
      `DELETE FROM insurers i WHERE NOT (i.name = ANY($1::text[])) AND NOT EXISTS (SELECT 1 FROM tic_files f WHERE f.payer_name = i.name)`,
      [insurersBefore],
    )
  })

  it('imports every in-network example: one row per negotiated price and provider (NPI, else TIN), as the JSON says', async () => {
    const examples = readdirSync(TIC_EXAMPLES).filter((f) => f.startsWith('in-network-rates'))
    expect(examples.length).toBe(6)
    for (const name of examples) {
      const summary = await run(example(name))
      const file = summary.files[0]!
      expect(file).toMatchObject({ status: 'imported', kind: 'in_network' })
      const expected = expectedRates(read(name))
      expect(file.rates, name).toBe(expected.length)
      const stored = await rows<{ npi: string | null; tin: string; code: string; type: string; rate: number; billing_class: string }>(
        `SELECT npi, tin, billing_code AS code, negotiated_type AS type, negotiated_rate::float8 AS rate, billing_class FROM tic_rates WHERE file_id = $1`,
        [file.file_id],
      )
      expect(sortRates(stored), name).toEqual(sortRates(expected))
      expect(summary.load_id).not.toBeNull()
    }
  })

  it('keeps every field: negotiated types, service codes, modifiers, expiration, arrangements, contained codes, plans', async () => {
    const [knee] = await rows<Json>(
      `SELECT r.billing_code_type, r.billing_code_type_version, r.name, r.negotiation_arrangement, r.setting, r.service_codes, r.billing_code_modifiers,
         to_char(r.expiration_date, 'YYYY-MM-DD') AS expiration_date, f.payer_name, f.plan_name, f.plan_id, f.plan_id_type, f.plan_market_type, f.reporting_entity_name,
         to_char(f.last_updated_on, 'YYYY-MM-DD') AS last_updated_on
       FROM tic_rates r JOIN tic_files f ON f.id = r.file_id
       WHERE f.source LIKE '%fee-for-service%' AND starts_with(f.source, $1) AND r.billing_code = '27447' AND r.negotiated_rate = 123.45 AND r.npi = '1111111111' AND r.tin = '11-1111111'`,
      [dir],
    )
    expect(knee).toEqual({
      billing_code_type: 'CPT',
      billing_code_type_version: '2020',
      name: 'Knee Replacement',
      negotiation_arrangement: 'ffs',
      setting: 'inpatient',
      service_codes: ['18', '19', '11'],
      billing_code_modifiers: ['AS'],
      expiration_date: '2022-01-01',
      payer_name: 'ACME Issuer',
      plan_name: 'Plan A PPO',
      plan_id: '1111111111',
      plan_id_type: 'ein',
      plan_market_type: 'group',
      reporting_entity_name: 'medicare',
      last_updated_on: '2020-08-27',
    })
    const types = await rows<{ negotiated_type: string; code: string; rate: number; info: string | null }>(
      `SELECT DISTINCT r.negotiated_type, r.billing_code_type || ' ' || r.billing_code AS code, r.negotiated_rate::float8 AS rate, r.additional_information AS info
       FROM tic_rates r JOIN tic_files f ON f.id = r.file_id WHERE f.source LIKE '%all-negotiated-types%' AND starts_with(f.source, $1) ORDER BY 1, 2, 3`,
      [dir],
    )
    expect(types.map((t) => `${t.negotiated_type} ${t.code} ${t.rate}`)).toEqual([
      'derived CPT 80053 45',
      'fee schedule CPT 27447 8500',
      'negotiated CPT 27447 12000',
      'negotiated CPT 99214 150',
      'negotiated CPT 99285 2500',
      'per diem RC 0200 5500',
      'percentage CPT 97110 65',
      'percentage CPT 99285 75.5',
    ])
    const bundle = await rows<{ negotiation_arrangement: string; contained_codes: string[]; billing_code_type: string }>(
      `SELECT DISTINCT r.negotiation_arrangement, r.contained_codes, r.billing_code_type FROM tic_rates r JOIN tic_files f ON f.id = r.file_id
       WHERE (f.source LIKE '%bundle%' OR f.source LIKE '%capitation%') AND starts_with(f.source, $1) ORDER BY 1`,
      [dir],
    )
    expect(bundle).toEqual([
      { negotiation_arrangement: 'bundle', contained_codes: ['CPT:27447', 'CPT:27446'], billing_code_type: 'ICD' },
      { negotiation_arrangement: 'capitation', contained_codes: ['CPT:27447', 'CPT:27446'], billing_code_type: 'CPT' },
    ])
    // the multiple-plans file names no plan and no issuer: the reporting entity is the payer
    const [multi] = await rows<{ payer_name: string; plan_name: string }>(`SELECT payer_name, plan_name FROM tic_files WHERE source LIKE '%multiple-plans%' AND starts_with(source, $1)`, [dir])
    expect(multi).toEqual({ payer_name: 'cms', plan_name: '' })
  })

  it('imports the allowed-amounts examples: one row per payment, provider and NPI', async () => {
    for (const name of ['allowed-amounts-single-plan-sample.json', 'allowed-amounts-multiple-plan-sample.json']) {
      const summary = await run(example(name))
      const doc = read(name)
      const expected = doc.out_of_network.flatMap((o: Json) =>
        o.allowed_amounts.flatMap((a: Json) =>
          a.payments.flatMap((p: Json) => p.providers.flatMap((pr: Json) => pr.npi.map((npi: number) => `${o.billing_code}|${npi}|${p.allowed_amount}|${pr.billed_charge}`))),
        ),
      )
      expect(summary.files[0]).toMatchObject({ status: 'imported', kind: 'allowed_amounts', allowed_amounts: expected.length })
      const stored = await rows<{ k: string }>(
        `SELECT billing_code || '|' || npi || '|' || allowed_amount::float8 || '|' || billed_charge::float8 AS k FROM tic_allowed_amounts WHERE file_id = $1`,
        [summary.files[0]!.file_id],
      )
      expect(stored.map((s) => s.k).sort()).toEqual(expected.sort())
    }
    const [modifier] = await rows<{ billing_code_modifiers: string[]; service_codes: string[] }>(
      `SELECT DISTINCT a.billing_code_modifiers, a.service_codes FROM tic_allowed_amounts a JOIN tic_files f ON f.id = a.file_id WHERE f.source LIKE '%allowed-amounts-single-plan%' AND starts_with(f.source, $1)`,
      [dir],
    )
    expect(modifier).toEqual({ billing_code_modifiers: ['25'], service_codes: ['01', '02', '03'] })
  })

  it('a re-import of the same file changes nothing: no new rows, no new data version', async () => {
    const file = path.join(dir, 'examples', 'in-network-rates-fee-for-service-single-plan-sample.json')
    const count = async () => (await rows<{ rates: number; loads: number; files: number }>(
      `SELECT (SELECT count(*)::int FROM tic_rates r JOIN tic_files f ON f.id = r.file_id WHERE starts_with(f.source, $1)) AS rates,
         (SELECT count(*)::int FROM data_loads WHERE source_file = $2) AS loads, (SELECT count(*)::int FROM tic_files WHERE starts_with(source, $1)) AS files`,
      [dir, file],
    ))[0]
    const before = await count()
    const again = await run(file)
    expect(again.load_id).toBeNull()
    expect(again.files[0]).toMatchObject({ status: 'unchanged' })
    expect(await count()).toEqual(before)
  })

  it('resolves provider references that come after in_network, inline provider groups, and gzip', async () => {
    const doc = read('in-network-rates-fee-for-service-single-plan-sample.json')
    // provider_references last; the item's billing code after its rates
    const { provider_references, in_network, ...header } = doc
    const reordered = { ...header, in_network: in_network.map(({ negotiated_rates, ...head }: Json) => ({ negotiated_rates, ...head })), provider_references }
    const late = path.join(dir, 'late-references.json.gz')
    writeFileSync(late, gzipSync(JSON.stringify(reordered, null, 1)))
    const summary = await run(late)
    expect(summary.files[0]).toMatchObject({ status: 'imported', rates: expectedRates(doc).length })
    // schema 1.x: provider_groups inline in negotiated_rates
    const groups = new Map(provider_references.map((r: Json) => [r.provider_group_id, r.provider_groups]))
    const inline = {
      ...header,
      plan_name: 'Inline PPO',
      in_network: in_network.map((item: Json) => ({
        ...item,
        negotiated_rates: item.negotiated_rates.map((r: Json) => ({ negotiated_prices: r.negotiated_prices, provider_groups: r.provider_references.flatMap((id: number) => groups.get(id)) })),
      })),
    }
    const inlineFile = path.join(dir, 'inline.json')
    writeFileSync(inlineFile, JSON.stringify(inline))
    const inlined = await run(inlineFile)
    expect(inlined.files[0]).toMatchObject({ status: 'imported', rates: expectedRates(doc).length })
  })

  it('counts references to groups the file does not define as skipped, with the reason', async () => {
    const doc = read('in-network-rates-no-npi.json')
    doc.plan_name = 'Dangling'
    doc.in_network[0].negotiated_rates.push({ provider_references: [7], negotiated_prices: doc.in_network[0].negotiated_rates[0].negotiated_prices })
    const file = path.join(dir, 'dangling.json')
    writeFileSync(file, JSON.stringify(doc))
    const summary = await run(file)
    expect(summary.files[0]!.rates).toBe(1)
    expect(summary.files[0]!.skipped).toEqual({ 'negotiated price referring to provider_group_id 7, which the file does not define': 1 })
  })

  it('refuses malformed files with the line, column and JSON path, and keeps nothing of them', async () => {
    const text = readFileSync(path.join(TIC_EXAMPLES, 'in-network-rates-all-negotiated-types-sample.json'), 'utf8')
    const cases: [string, string, RegExp][] = [
      ['truncated.json', text.slice(0, Math.floor(text.length * 0.7)), /line \d+, column \d+ .*unexpected end of file/],
      ['bad-type.json', text.replace('"per diem"', '"per night"'), /line \d+, column \d+ .*\$\.in_network\[2\]\.negotiated_rates\[0\]\.negotiated_prices\[0\]\.negotiated_type: does not match the CMS schema/],
      ['bad-comma.json', text.replace('"negotiated_rate": 150.00,', '"negotiated_rate": 150.00,,'), /line 65, column 41 .*\$\.in_network\[0\]\.negotiated_rates\[0\]\.negotiated_prices\[0\]\.negotiated_rate: expected a property name/],
      ['no-code.json', text.replace('"billing_code": "97110",', ''), /\$\.in_network\[1\]\.billing_code: does not match the CMS schema/],
      ['bad-npi-type.json', text.replace('[1234567890, 2345678901, 3456789012]', '["1234567890"]'), /\$\.provider_references\[0\]\.provider_groups\[0\]\.npi\[0\]/],
    ]
    const files = await rows<{ n: number }>('SELECT count(*)::int AS n FROM tic_files WHERE starts_with(source, $1)', [dir])
    for (const [name, content, message] of cases) {
      const file = path.join(dir, name)
      writeFileSync(file, content)
      await expect(run(file), name).rejects.toThrow(message)
      expect(await rows('SELECT 1 FROM tic_files WHERE source = $1', [file])).toEqual([])
    }
    expect(await rows<{ n: number }>('SELECT count(*)::int AS n FROM tic_files WHERE starts_with(source, $1)', [dir])).toEqual(files)
    // the failed load is journalled with the position
    const [failed] = await rows<{ status: string; error: string }>(`SELECT status, error FROM data_loads WHERE scale = 'tic' AND source_file = $1`, [path.join(dir, 'bad-npi-type.json')])
    expect(failed!.status).toBe('failed')
    expect(failed!.error).toMatch(/\$\.provider_references\[0\]/)
  })

  it('a table of contents imports the files it lists that are here, with its plans, and reports the others as skipped', async () => {
    const tocDir = path.join(dir, 'toc')
    rmSync(tocDir, { recursive: true, force: true })
    mkdirSync(tocDir)
    copyFileSync(path.join(TIC_EXAMPLES, 'table-of-contents-sample.json'), path.join(tocDir, 'index.json'))
    // a local copy named like the URL's file: the multiple-plans example (no plan of its own), changed so its digest is new
    const doc = read('in-network-rates-multiple-plans-sample.json')
    doc.last_updated_on = '2023-04-19'
    writeFileSync(path.join(tocDir, 'in-network-file-123456.json'), JSON.stringify(doc))
    const summary = await run(tocDir)
    expect(summary.files.map((f) => [path.basename(f.source), f.status])).toEqual([
      ['index.json', 'table_of_contents'],
      ['behavioral-health-0000.json', 'skipped'],
      ['allowed-amount-file-987665.json', 'skipped'],
      ['chip-in-network-file.json', 'skipped'],
      ['chip-allowed-amount-file.json', 'skipped'],
      ['in-network-file-123456.json', 'imported'],
    ])
    const imported = summary.files.find((f) => f.status === 'imported')!
    expect(imported).toMatchObject({ plan_name: 'medicaid; medicare', payer_name: 'cms', rates: expectedRates(doc).length })
    expect(summary.files[1]!.skipped).toEqual({ 'remote file not present next to the table of contents (pass --fetch to download it)': 1 })
  })

  it('runs as `data import tic`: the summary, exit 2 with the position for a malformed file, usage errors', async () => {
    const cli = async (...argv: string[]) => {
      let out = ''
      let err = ''
      const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) }, ctx.db)
      return { code, out, err }
    }
    const doc = read('in-network-rates-no-npi.json')
    doc.plan_name = 'Via the CLI'
    doc.provider_references[0].provider_groups[0].npi = [1999999999]
    const file = path.join(dir, 'cli.json')
    writeFileSync(file, JSON.stringify(doc, null, 2))
    const first = await cli('data', 'import', 'tic', file, '--payer', 'CLI Health')
    expect(first.code, first.err).toBe(0)
    expect(first.out).toMatch(/cli\.json: imported \(in network\)\n {4}payer CLI Health, plan Via the CLI: 1 rates/)
    expect(first.out).toMatch(/NPIs in the directory: 0 matched, 1 not in the directory \(1 rates kept, unmatched\)/)
    const again = await cli('data', 'import', 'tic', file, '--json')
    expect(JSON.parse(again.out)).toMatchObject({ load_id: null, files: [{ status: 'unchanged' }] })
    const broken = path.join(dir, 'cli-broken.json')
    writeFileSync(broken, JSON.stringify(doc, null, 2).replace('"negotiated_rate": 123.45', '"negotiated_rate": -1'))
    const refused = await cli('data', 'import', 'tic', broken)
    expect(refused.code).toBe(2)
    expect(refused.err).toMatch(/cli-broken\.json: malformed, nothing of it imported: line \d+, column \d+ .*\$\.in_network\[0\]\.negotiated_rates\[0\]\.negotiated_prices\[0\]\.negotiated_rate: does not match the CMS schema/)
    expect((await cli('data', 'import', 'tic')).err).toMatch(/needs a file/)
    expect((await cli('data', 'import', 'tic', file, '--payer-kind', 'x')).err).toMatch(/--payer-kind must be one of/)
  })
})
