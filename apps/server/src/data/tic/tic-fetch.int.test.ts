import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../../test/helpers.ts'
import { runCli } from '../../cli/main.ts'
import { silentSink } from '../progress.ts'
import { runTicImport } from './import.ts'

/**
 * `data import tic <table of contents> --fetch` (issue 37): the in-network files a table of contents lists are
 * downloaded from a server this test starts on 127.0.0.1 (plain and .gz), through the CLI; and the failures: a
 * 404, a connection cut in the middle of a file, a file over --max-bytes, a server that stops sending. Each stops
 * the run with a message naming the URL, keeps nothing of that file, and says which files were imported and which
 * not. The files are made here (no CMS example needed), each with a nonce so that its digest is new.
 */

interface Rate {
  npi: string
  tin: string
  code: string
  rate: number
}

/** An in-network file of `items` CPT codes, each priced for 2 provider groups of 2 NPIs; returns its text and its rate rows. */
function inNetworkFile(plan: string, items: number): { text: string; rates: Rate[] } {
  const nonce = randomBytes(6).toString('hex')
  const base = 1_900_000_000 + Math.floor(Math.random() * 90_000_000)
  const groups = [1, 2].map((g) => ({ id: g, npis: [base + g * 10, base + g * 10 + 1], tin: `9${g}-${nonce.slice(0, 7).replace(/[a-f]/g, '0')}` }))
  const rates: Rate[] = []
  const doc = {
    reporting_entity_name: 'Fetch Test Health',
    reporting_entity_type: 'health insurance issuer',
    plan_name: plan,
    plan_id_type: 'hios',
    plan_id: nonce,
    plan_market_type: 'group',
    last_updated_on: '2026-11-01',
    version: '1.3.1',
    provider_references: groups.map((g) => ({ provider_group_id: g.id, provider_groups: [{ npi: g.npis, tin: { type: 'ein', value: g.tin } }] })),
    in_network: Array.from({ length: items }, (_, i) => {
      const code = String(10000 + i)
      const rate = 100 + i + 0.25
      for (const g of groups) for (const npi of g.npis) rates.push({ npi: String(npi), tin: g.tin, code, rate })
      return {
        negotiation_arrangement: 'ffs',
        name: `Procedure ${code}`,
        billing_code_type: 'CPT',
        billing_code_type_version: '2026',
        billing_code: code,
        description: `Fetch test procedure ${code}`,
        negotiated_rates: [
          {
            provider_references: [1, 2],
            negotiated_prices: [{ negotiated_type: 'negotiated', negotiated_rate: rate, expiration_date: '9999-12-31', billing_class: 'professional', setting: 'outpatient', service_code: ['11'] }],
          },
        ],
      }
    }),
  }
  return { text: JSON.stringify(doc, null, 1), rates }
}

const sortRates = (rows: Rate[]) => rows.map((r) => `${r.npi}|${r.tin}|${r.code}|${r.rate}`).sort()

type Route = (request: IncomingMessage, response: ServerResponse) => void

describe('data import tic --fetch: a table of contents whose files are downloaded (plain and .gz), and failed downloads', () => {
  const ctx = useTestDatabase()
  const routes = new Map<string, Route>()
  const requests: string[] = []
  let server: Server
  let base = ''
  let dir: string
  const insurersBefore: string[] = []
  const rows = async <T>(sql: string, params: unknown[] = []) => (await ctx.db.pool.query(sql, params)).rows as T[]

  /** serves `body` whole, with its Content-Length */
  const serve = (urlPath: string, body: Buffer | string) =>
    routes.set(urlPath, (_request, response) => {
      const bytes = Buffer.from(body)
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length })
      response.end(bytes)
    })

  /** a table of contents listing `files` (paths on the test server) in one reporting structure, written to a file of its own */
  const tableOfContents = (name: string, files: string[]) => {
    const toc = {
      reporting_entity_name: 'Fetch Test Health',
      reporting_entity_type: 'health insurance issuer',
      reporting_structure: [
        {
          reporting_plans: [{ plan_name: 'Fetch PPO', plan_id_type: 'ein', plan_id: '123456789', plan_market_type: 'group', issuer_name: 'Fetch Test Health' }],
          in_network_files: files.map((f) => ({ description: f, location: `${base}${f}` })),
        },
      ],
      last_updated_on: '2026-11-01',
      version: '1.0.0',
    }
    const file = path.join(dir, name)
    writeFileSync(file, JSON.stringify(toc))
    return file
  }

  const cli = async (...argv: string[]) => {
    let out = ''
    let err = ''
    const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) }, ctx.db)
    return { code, out, err }
  }
  const storedRates = (url: string) =>
    rows<Rate>(
      `SELECT r.npi, r.tin, r.billing_code AS code, r.negotiated_rate::float8 AS rate FROM tic_rates r JOIN tic_files f ON f.id = r.file_id WHERE f.source = $1`,
      [url],
    )
  const filesFrom = (url: string) => rows<{ id: number }>('SELECT id FROM tic_files WHERE source = $1', [url])

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'citrus-tic-fetch-'))
    mkdirSync(dir, { recursive: true })
    insurersBefore.push(...(await rows<{ name: string }>('SELECT name FROM insurers')).map((r) => r.name))
    server = createServer((request, response) => {
      requests.push(request.url ?? '')
      const route = routes.get(request.url ?? '')
      if (route) return route(request, response)
      response.writeHead(404, { 'content-type': 'text/plain' })
      response.end('not here')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    rmSync(dir, { recursive: true, force: true })
    await ctx.db.pool.query(`DELETE FROM tic_files WHERE starts_with(source, $1)`, [base])
    await ctx.db.pool.query(
      `DELETE FROM insurers i WHERE NOT (i.name = ANY($1::text[])) AND NOT EXISTS (SELECT 1 FROM tic_files f WHERE f.payer_name = i.name)`,
      [insurersBefore],
    )
  })

  it('downloads and imports the in-network files a table of contents lists, plain and .gz; a second run changes nothing', async () => {
    const plain = inNetworkFile('Fetch Plain', 5)
    const gz = inNetworkFile('Fetch Gzip', 7)
    serve('/ok/plain-rates.json', plain.text)
    serve('/ok/gzip-rates.json.gz', gzipSync(gz.text))
    const toc = tableOfContents('toc-ok.json', ['/ok/plain-rates.json', '/ok/gzip-rates.json.gz'])
    const first = await cli('data', 'import', 'tic', toc, '--fetch', '--payer', 'Fetch Test Health', '--json')
    expect(first.code, first.err).toBe(0)
    const summary = JSON.parse(first.out)
    expect(summary.files.map((f: { source: string; status: string }) => [f.source, f.status])).toEqual([
      [toc, 'table_of_contents'],
      [`${base}/ok/plain-rates.json`, 'imported'],
      [`${base}/ok/gzip-rates.json.gz`, 'imported'],
    ])
    expect(summary.files[1]).toMatchObject({ kind: 'in_network', rates: plain.rates.length, payer_name: 'Fetch Test Health', plan_name: 'Fetch Plain' })
    expect(summary.files[2]).toMatchObject({ kind: 'in_network', rates: gz.rates.length, plan_name: 'Fetch Gzip' })
    expect(summary.load_id).not.toBeNull()
    expect(sortRates(await storedRates(`${base}/ok/plain-rates.json`))).toEqual(sortRates(plain.rates))
    expect(sortRates(await storedRates(`${base}/ok/gzip-rates.json.gz`))).toEqual(sortRates(gz.rates))
    // the same files again: downloaded, recognised by their digest, nothing written, no new data version
    const count = async () => (await rows<{ n: number }>(`SELECT count(*)::int AS n FROM tic_rates r JOIN tic_files f ON f.id = r.file_id WHERE starts_with(f.source, $1)`, [base]))[0]!.n
    const before = await count()
    const again = await cli('data', 'import', 'tic', toc, '--fetch', '--json')
    expect(again.code, again.err).toBe(0)
    expect(JSON.parse(again.out)).toMatchObject({ load_id: null, files: [{ status: 'table_of_contents' }, { status: 'unchanged' }, { status: 'unchanged' }] })
    expect(await count()).toBe(before)
    // without --fetch nothing is downloaded: the locations are reported as skipped
    requests.length = 0
    const offline = await cli('data', 'import', 'tic', toc, '--json')
    expect(JSON.parse(offline.out).files.slice(1).map((f: { status: string }) => f.status)).toEqual(['skipped', 'skipped'])
    expect(requests).toEqual([])
  })

  it('a 404 stops the run with the URL and the status, keeps the files before it and says which were not imported', async () => {
    const before = inNetworkFile('Fetch Before 404', 3)
    const after = inNetworkFile('Fetch After 404', 3)
    serve('/404/first.json', before.text)
    serve('/404/third.json', after.text)
    const toc = tableOfContents('toc-404.json', ['/404/first.json', '/404/missing.json', '/404/third.json'])
    const result = await cli('data', 'import', 'tic', toc, '--fetch')
    expect(result.code).toBe(1)
    expect(result.err).toContain(`${base}/404/missing.json: HTTP 404 Not Found, nothing downloaded`)
    expect(result.err).toContain(`imported (kept): ${base}/404/first.json`)
    expect(result.err).toContain(`not imported: ${base}/404/missing.json, ${base}/404/third.json`)
    expect(sortRates(await storedRates(`${base}/404/first.json`))).toEqual(sortRates(before.rates))
    expect(await filesFrom(`${base}/404/missing.json`)).toEqual([])
    expect(await filesFrom(`${base}/404/third.json`)).toEqual([])
    // the file kept is a finished load (a new data version); the failure is journalled beside it
    const loads = await rows<{ status: string; error: string | null }>(`SELECT status, error FROM data_loads WHERE scale = 'tic' AND source_file = $1 ORDER BY id`, [toc])
    expect(loads.map((l) => l.status)).toEqual(['done', 'failed'])
    expect(loads[1]!.error).toContain('HTTP 404')
  })

  it('a connection cut in the middle of a file (plain or .gz) stops with the bytes that arrived, and nothing of that file is kept', async () => {
    for (const [name, body] of [
      ['/cut/rates.json', Buffer.from(inNetworkFile('Fetch Cut Plain', 400).text)],
      ['/cut/rates.json.gz', gzipSync(inNetworkFile('Fetch Cut Gzip', 4000).text)],
    ] as const) {
      const half = Math.floor(body.length / 2)
      routes.set(name, (_request, response) => {
        response.writeHead(200, { 'content-length': body.length })
        response.write(body.subarray(0, half), () => setTimeout(() => response.socket?.destroy(), 50))
      })
      const toc = tableOfContents(`toc-cut-${path.basename(name)}.json`, [name])
      const result = await cli('data', 'import', 'tic', toc, '--fetch')
      expect(result.code, name).toBe(1)
      expect(result.err, name).toMatch(new RegExp(`${base}${name.replaceAll('.', '\\.')}: the download broke off after \\d+ bytes of ${body.length}`))
      expect(result.err, name).toContain(`imported (kept): none`)
      expect(result.err, name).toContain(`not imported: ${base}${name}`)
      expect(await filesFrom(`${base}${name}`), name).toEqual([])
    }
  })

  it('a file over --max-bytes is refused: by its Content-Length before the download, or when its JSON passes the limit (.gz without a length)', async () => {
    const big = inNetworkFile('Fetch Too Big', 200)
    serve('/big/announced.json', big.text)
    routes.set('/big/chunked.json.gz', (_request, response) => {
      // no Content-Length (chunked): the limit holds on the decompressed JSON
      response.writeHead(200, { 'content-type': 'application/gzip' })
      response.end(gzipSync(big.text))
    })
    const limit = String(Math.floor(Buffer.byteLength(big.text) / 2))
    const announced = await cli('data', 'import', 'tic', tableOfContents('toc-big-1.json', ['/big/announced.json']), '--fetch', '--max-bytes', limit)
    expect(announced.code).toBe(1)
    expect(announced.err).toContain(`${base}/big/announced.json: ${Buffer.byteLength(big.text)} bytes announced (Content-Length), more than the limit of ${limit} bytes (--max-bytes); nothing downloaded`)
    const chunked = await cli('data', 'import', 'tic', tableOfContents('toc-big-2.json', ['/big/chunked.json.gz']), '--fetch', '--max-bytes', limit)
    expect(chunked.code).toBe(1)
    expect(chunked.err).toContain(`${base}/big/chunked.json.gz: more than ${limit} bytes of JSON (limit; --max-bytes)`)
    expect(chunked.err).toContain(`not imported: ${base}/big/chunked.json.gz`)
    expect(await filesFrom(`${base}/big/announced.json`)).toEqual([])
    expect(await filesFrom(`${base}/big/chunked.json.gz`)).toEqual([])
    // the same file under the limit imports
    const ok = await cli('data', 'import', 'tic', tableOfContents('toc-big-3.json', ['/big/announced.json']), '--fetch', '--max-bytes', String(Buffer.byteLength(big.text)))
    expect(ok.code, ok.err).toBe(0)
    expect(sortRates(await storedRates(`${base}/big/announced.json`))).toEqual(sortRates(big.rates))
  })

  it('a server that stops sending is given up after the stall limit, and a download past the time limit is stopped', async () => {
    const file = Buffer.from(inNetworkFile('Fetch Stall', 50).text)
    routes.set('/slow/stalls.json', (_request, response) => {
      response.writeHead(200, { 'content-length': file.length })
      response.write(file.subarray(0, 1000)) // then nothing
    })
    routes.set('/slow/trickles.json', (_request, response) => {
      response.writeHead(200, { 'content-length': file.length })
      let sent = 0
      const timer = setInterval(() => {
        if (response.destroyed || sent >= file.length) return clearInterval(timer)
        response.write(file.subarray(sent, (sent += 200)))
      }, 20)
    })
    const stalled = runTicImport(ctx.db.pool, tableOfContents('toc-stall.json', ['/slow/stalls.json']), { sink: silentSink, fetch: true, fetchStallSeconds: 0.5 })
    await expect(stalled).rejects.toThrow(`${base}/slow/stalls.json: no data from the server for 0.5 s (limit)`)
    const slow = runTicImport(ctx.db.pool, tableOfContents('toc-slow.json', ['/slow/trickles.json']), { sink: silentSink, fetch: true, fetchTimeoutSeconds: 1 })
    await expect(slow).rejects.toThrow(`${base}/slow/trickles.json: the download took longer than 1 s (limit; --fetch-timeout)`)
    expect(await filesFrom(`${base}/slow/stalls.json`)).toEqual([])
    expect(await filesFrom(`${base}/slow/trickles.json`)).toEqual([])
  })

  it('fetches plain http only from this machine', async () => {
    const toc = path.join(dir, 'toc-remote-http.json')
    writeFileSync(
      toc,
      JSON.stringify({
        reporting_entity_name: 'Fetch Test Health',
        reporting_entity_type: 'health insurance issuer',
        reporting_structure: [
          {
            reporting_plans: [{ plan_name: 'Fetch PPO', plan_id_type: 'ein', plan_id: '123456789', plan_market_type: 'group', issuer_name: 'Fetch Test Health' }],
            in_network_files: [{ description: 'x', location: 'http://payer.example.com/rates.json' }],
          },
        ],
        last_updated_on: '2026-11-01',
        version: '1.0.0',
      }),
    )
    const summary = await runTicImport(ctx.db.pool, toc, { sink: silentSink, fetch: true })
    expect(summary.files[1]).toMatchObject({ status: 'skipped', skipped: { 'plain http is fetched only from this machine (127.0.0.1, localhost); use https': 1 } })
  })
})
