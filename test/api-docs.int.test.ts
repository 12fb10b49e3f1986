import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { REPO_ROOT } from '../apps/server/src/runtime.ts'
import { DEFAULT_DEMO_PASSWORD, ensureDemoAccounts } from '../apps/server/src/seed/demo-accounts.ts'
import { useTestApp } from './helpers.ts'

/**
 * docs/api.md, run: every ```sh block with a curl command is run by sh, in order, against a live server on the
 * test database (the ci dataset, the demo accounts). Each must answer 2xx, or the status its `# answers NNN`
 * comment documents, and its answer must have every field of the ```json block that follows it. The answers of
 * the sign-in, the API key and the share examples give the later examples their $TOKEN, $API_KEY and $LINK_TOKEN.
 */

interface Example {
  line: number
  script: string
  documented: unknown
  status: number | null
}

export function examplesOf(markdown: string): Example[] {
  const lines = markdown.split('\n')
  const blocks: { lang: string; body: string; line: number }[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!)
    if (!open || !open[1]) continue
    const start = i + 1
    let end = start
    while (end < lines.length && lines[end] !== '```') end++
    blocks.push({ lang: open[1], body: lines.slice(start, end).join('\n'), line: start })
    i = end
  }
  const examples: Example[] = []
  blocks.forEach((block, index) => {
    if (block.lang !== 'sh' || !/\bcurl\b/.test(block.body)) return
    const next = blocks[index + 1]
    const status = /# answers (\d{3})/.exec(block.body)
    examples.push({
      line: block.line,
      script: block.body,
      documented: next?.lang === 'json' ? JSON.parse(next.body) : undefined,
      status: status ? Number(status[1]) : null,
    })
  })
  return examples
}

/** Fields of `documented` missing from `actual` (same type; arrays: the first element's fields when both have one). */
export function missingFields(actual: unknown, documented: unknown, at = '$'): string[] {
  if (documented === null) return []
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual)) return [`${at}: an array`]
    return documented.length > 0 && actual.length > 0 ? missingFields(actual[0], documented[0], `${at}[0]`) : []
  }
  if (typeof documented === 'object') {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`${at}: an object`]
    return Object.entries(documented as Record<string, unknown>).flatMap(([key, value]) =>
      key in actual ? missingFields((actual as Record<string, unknown>)[key], value, `${at}.${key}`) : [`${at}.${key}`],
    )
  }
  return typeof actual === typeof documented ? [] : [`${at}: a ${typeof documented}`]
}

// the ci dataset, when this file is the first to load it (the embedded database loads it in a few minutes)
vi.setConfig({ hookTimeout: 600_000, testTimeout: 300_000 })

describe('docs/api.md: every curl example against a live server', () => {
  const ctx = useTestApp({}, { dataset: true })
  const work = mkdtempSync(path.join(tmpdir(), 'citrus-api-docs-'))
  const vars: Record<string, string> = {}
  const markdown = readFileSync(path.join(REPO_ROOT, 'docs/api.md'), 'utf8')
  const examples = examplesOf(markdown)

  beforeAll(async () => {
    await ensureDemoAccounts(ctx.db.prisma, DEFAULT_DEMO_PASSWORD)
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    vars.CITRUS_URL = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`
    // the ci dataset's values for the examples' variables: a facility's ZIP with a cash-priced code, the most
    // common specialty around it, and a clinician there with claims
    const place = await ctx.db.pool.query<{ zip: string; code: string }>(
      `SELECT f.zip_code AS zip, fp.procedure_code AS code FROM facility_prices fp JOIN facilities f ON f.id = fp.facility_id
        WHERE fp.discounted_cash IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    )
    vars.ZIP = place.rows[0]!.zip
    vars.CPT = place.rows[0]!.code
    const clinician = await ctx.db.pool.query<{ npi: string; taxonomy: string }>(
      `SELECT p.npi, p.primary_taxonomy_code AS taxonomy FROM providers p JOIN mv_provider_panel pp ON pp.npi = p.npi, zips z
        WHERE z.zip = $1 AND ST_DWithin(p.geog, z.geog, 50000) ORDER BY ST_Distance(p.geog, z.geog), p.npi LIMIT 1`,
      [vars.ZIP],
    )
    vars.NPI = clinician.rows[0]!.npi
    vars.SPECIALTY = clinician.rows[0]!.taxonomy
    // every answer's status after the body, whatever the example asks curl to print
    writeFileSync(path.join(work, '.curlrc'), 'write-out = "\\n%{http_code}"\n')
  })
  // what the examples made for the demo user, undone: the test database outlives a run, and a user may hold at
  // most 10 API keys
  const made = { keys: [] as string[], documents: [] as string[] }
  afterAll(async () => {
    await ctx.db.pool.query('UPDATE api_tokens SET revoked_at = now() WHERE id = ANY($1::uuid[])', [made.keys])
    await ctx.db.pool.query('DELETE FROM ai_documents WHERE id = ANY($1::uuid[])', [made.documents])
    rmSync(work, { recursive: true, force: true })
  })

  it('documents at least one example per endpoint group', () => {
    const scripts = examples.map((e) => e.script).join('\n')
    for (const endpoint of [
      '/api/users/login',
      '/api/admin/api-token',
      '/api/typeahead/',
      '/api/care-select/rankings',
      '/api/care-select/referral-letter',
      '/api/cost-transparency/procedure',
      '/api/cost-transparency/provider/',
      '/api/atlas',
      '/api/nova/',
      '/api/ai-hub/',
      '/api/openapi.json',
    ]) {
      expect(scripts, endpoint).toContain(endpoint)
    }
  })

  /** Runs a script with sh, asynchronously: the server answering it runs in this process. */
  function sh(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn('sh', ['-e', '-c', script], { cwd: work, env: { PATH: process.env.PATH, CURL_HOME: work, HOME: work, ...vars } })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
      child.once('close', (status) => {
        clearTimeout(timer)
        resolve({ status, stdout, stderr })
      })
    })
  }

  it('runs every example in order: each answers as documented', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(12)
    for (const example of examples) {
      const where = `docs/api.md line ${example.line}`
      const run = await sh(example.script)
      expect(run.status, `${where}: ${run.stderr}`).toBe(0)
      const output = run.stdout.replace(/\n$/, '')
      const cut = output.lastIndexOf('\n')
      const status = Number(output.slice(cut + 1))
      const body = output.slice(0, Math.max(cut, 0))
      if (example.status === null) expect(status, `${where}: ${body}`).toBeGreaterThanOrEqual(200)
      if (example.status === null) expect(status, `${where}: ${body}`).toBeLessThan(300)
      else expect(status, `${where}: ${body}`).toBe(example.status)
      const saved = /-o (\S+\.pdf)/.exec(example.script)
      if (saved) expect(readFileSync(path.join(work, saved[1]!)).subarray(0, 5).toString(), where).toBe('%PDF-')
      if (example.documented !== undefined) {
        const answer = JSON.parse(body) as Record<string, unknown>
        expect(missingFields(answer, example.documented), `${where}: ${body.slice(0, 2000)}`).toEqual([])
        if (example.script.includes('/api/users/login')) vars.TOKEN = String(answer.token)
        if (example.script.includes('-X POST') && example.script.includes('/api/admin/api-token')) {
          vars.API_KEY = String(answer.token)
          made.keys.push(String(answer.id))
        }
        if (example.script.includes('-X POST') && example.script.includes('/api/ai-hub/documents')) {
          made.documents.push(...(answer.documents as { id: string }[]).map((document) => document.id))
        }
        if (example.script.includes('/share')) vars.LINK_TOKEN = new URL(String(answer.url)).searchParams.get('token') ?? ''
      }
    }
    expect(vars.TOKEN && vars.API_KEY && vars.LINK_TOKEN).toBeTruthy()
  })
})
