import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ALL_ENDPOINTS } from '@citrus/contracts'
import { accountsOf } from '../apps/server/src/routes/users/index.ts'
import { REPO_ROOT } from '../apps/server/src/runtime.ts'
import { DEFAULT_DEMO_PASSWORD, ensureDemoAccounts } from '../apps/server/src/seed/demo-accounts.ts'
import { useTestApp } from './helpers.ts'

/**
 * docs/api.md, run: every ```sh block with a curl command is run by sh, in order, against a live server on the
 * test database (the ci dataset, the demo accounts). Each must answer 2xx, or the status its `# answers NNN`
 * comment documents, and its answer must have every field of the ```json block that follows it. Some answers
 * give the later examples their variables (`taken`): the sign-in its $TOKEN, the API key its $API_KEY, the share
 * its $LINK_TOKEN, ...; a verification code, an invitation token and a password reset token are read from the
 * message the answer queued in the outbox, as its recipient would read them.
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

/** The call of an example's curl command: its method and its path as written, e.g. `POST /api/ai-hub/pins/$PIN_ID`. */
export function callOf(script: string): string {
  const method = /-X (GET|POST|PUT|PATCH|DELETE)\b/.exec(script)?.[1] ?? 'GET'
  const target = /"\$CITRUS_URL(\/[^"?\s]*)/.exec(script)?.[1] ?? ''
  return `${method} ${target}`
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
    // Nova's: the facility whose envenomations the most clinicians treated
    const facility = await ctx.db.pool.query<{ npi: string }>(
      `SELECT f.npi FROM facilities f JOIN snakebite_cases s ON s.facility_id = f.id
        GROUP BY f.npi ORDER BY count(DISTINCT s.provider_npi) DESC, f.npi LIMIT 1`,
    )
    vars.FACILITY_NPI = facility.rows[0]!.npi
    await forgetAccounts()
    // every answer's status after the body, whatever the example asks curl to print
    writeFileSync(path.join(work, '.curlrc'), 'write-out = "\\n%{http_code}"\n')
  })
  // what the examples made, undone: the test database outlives a run, and a user may hold at most 10 API keys
  const made = {
    keys: [] as string[],
    documents: [] as string[],
    pins: [] as string[],
    feedback: [] as number[],
    companies: [] as number[],
  }
  /** the accounts the sign-up examples make (and their invitations), before a run too (one may have failed midway) */
  const emails = examples
    .filter((example) => /^POST \/api\/users\/(user|member)-signup$/.test(callOf(example.script)))
    .flatMap((example) => [...example.script.matchAll(/"email\\?": \\?"([^"\\]+)/g)].map((match) => match[1]!.toLowerCase()))
  async function forgetAccounts() {
    await ctx.db.pool.query('DELETE FROM users WHERE lower(email) = ANY($1::text[])', [emails])
    await ctx.db.pool.query('DELETE FROM onboarding_invitations WHERE email = ANY($1::text[])', [emails])
  }
  afterAll(async () => {
    await ctx.db.pool.query('UPDATE api_tokens SET revoked_at = now() WHERE id = ANY($1::uuid[])', [made.keys])
    await ctx.db.pool.query('DELETE FROM ai_documents WHERE id = ANY($1::uuid[])', [made.documents])
    await ctx.db.pool.query('DELETE FROM ai_pins WHERE id = ANY($1::uuid[])', [made.pins])
    await ctx.db.pool.query('DELETE FROM feedback_submissions WHERE id = ANY($1::int[])', [made.feedback])
    await forgetAccounts()
    await ctx.db.pool.query('DELETE FROM companies WHERE id = ANY($1::int[])', [made.companies])
    rmSync(work, { recursive: true, force: true })
  })

  /**
   * The body of the message an answer queued, held in the outbox (this server has no e-mail or SMS provider); a
   * password reset's is written a moment after the answer, in a batch that settled() waits for.
   */
  async function messageOf(id: string): Promise<string> {
    await accountsOf(ctx.app).settled()
    const row = await ctx.db.pool.query<{ body: string }>('SELECT body FROM message_outbox WHERE id = $1', [id])
    if (!row.rows[0]) throw new Error(`message ${id}: not in the outbox`)
    return row.rows[0].body
  }

  /** What an answer gives the later examples, by the call that answered it. */
  async function taken(call: string, answer: Record<string, unknown>): Promise<Record<string, string>> {
    switch (call) {
      case 'POST /api/users/login':
        return { TOKEN: String(answer.token) }
      case 'GET /api/users/info':
        return { USER_ID: String(answer.id) }
      case 'POST /api/admin/api-token':
        made.keys.push(String(answer.id))
        return { API_KEY: String(answer.token), KEY_ID: String(answer.id) }
      case 'POST /api/cost-transparency/provider/$NPI/share':
        return { LINK_TOKEN: new URL(String(answer.url)).searchParams.get('token') ?? '' }
      case 'POST /api/shareable-url':
        return {
          SHARE_ID: String(answer.id),
          MEMBER_LINK: String(answer.url),
          MEMBER_LINK_TOKEN: new URL(String(answer.url)).searchParams.get('token') ?? '',
        }
      case 'POST /api/users/verification-code': {
        const code = /\b(\d{6})\b/.exec(await messageOf(String(answer.message_id)))?.[1]
        return { VERIFICATION_ID: String(answer.verification_id), CODE: code ?? '' }
      }
      case 'POST /api/users/verification-code/confirm':
        return { VERIFIED_TOKEN: String(answer.token) }
      case 'POST /api/users/password-reset-email': {
        const token = /[?&]token=([A-Za-z0-9._-]+)/.exec(await messageOf(String(answer.message_id)))?.[1]
        return { RESET_TOKEN: token ?? '' }
      }
      case 'POST /api/admin/email/onboarding': {
        const token = /[?&]invitation=([A-Za-z0-9_-]+)/.exec(await messageOf(String(answer.message_id)))?.[1]
        return { INVITATION_TOKEN: token ?? '' }
      }
      case 'GET /api/admin/activation-key':
        return { ACTIVATION_KEY: String(answer.activation_key) }
      case 'POST /api/ai-hub/documents':
        made.documents.push(...(answer.documents as { id: string }[]).map((document) => document.id))
        return { DOCUMENT_ID: (answer.documents as { id: string }[])[0]!.id }
      case 'POST /api/ai-hub/pins':
        made.pins.push(String(answer.id))
        return { PIN_ID: String(answer.id) }
      case 'POST /api/super-admin/company':
        made.companies.push(Number(answer.id))
        return { COMPANY_ID: String(answer.id) }
      case 'POST /api/feedback':
        made.feedback.push(Number(answer.id))
        return {}
      default:
        return {}
    }
  }

  it('documents one example per endpoint under /api (the probes /healthz and /readyz aside)', () => {
    const calls = examples.map((example) => callOf(example.script))
    const missing = ALL_ENDPOINTS.filter((endpoint) => !['/healthz', '/readyz'].includes(endpoint.path))
      .map((endpoint) => ({
        name: `${endpoint.method} /api${endpoint.path}`,
        pattern: new RegExp(`^${endpoint.method} /api${endpoint.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
      }))
      .filter((endpoint) => !calls.some((call) => endpoint.pattern.test(call)))
      .map((endpoint) => endpoint.name)
    expect(missing).toEqual([])
    expect(calls).toContain('GET /api/openapi.json')
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
      for (const [, name] of example.script.matchAll(/\$([A-Z_]+)/g)) expect(vars[name!], `${where}: $${name} is not set`).toBeTruthy()
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
        if (status < 300) Object.assign(vars, await taken(callOf(example.script), answer))
      }
    }
    for (const name of ['TOKEN', 'API_KEY', 'LINK_TOKEN', 'CODE', 'VERIFIED_TOKEN', 'INVITATION_TOKEN', 'RESET_TOKEN', 'PIN_ID'])
      expect(vars[name], name).toBeTruthy()
  })
})
