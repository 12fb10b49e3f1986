import { createServer, type IncomingMessage, type Server } from 'node:http'
import { Writable } from 'node:stream'
import {
  AI_HUB_ERROR_CODES,
  AI_HUB_MESSAGES,
  AI_MAX_CONTEXT_TOKENS,
  AI_MAX_FILE_BYTES,
  AI_MAX_FILES_PER_UPLOAD,
  AI_TOKENS_PER_PIN,
  AUTH_MESSAGES,
  ERROR_CODES,
  HTTP_MESSAGES,
  type AiResponse,
} from '@citrus/contracts'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { docxOf, encryptedOffice, pdfOf, pptxOf, xlsxOf } from '../../../../../test/ai-hub-fixtures.ts'
import { createTenant, loginTokenFor, testConfig, testDatabase, shareTokenFor, useTestApp } from '../../../../../test/helpers.ts'
import { buildApp } from '../../app.ts'
import { generateApiKey, hashApiKey, maskOf } from '../../auth/api-keys.ts'
import { OFFLINE_MODEL, UNVERIFIED_NUMBER } from '../../services/ai-hub/generate.ts'
import { numbersIn } from '../../services/ai-hub/numbers.ts'
import { docxBomb, pdfBomb, pptxBomb, xlsxBomb } from '../../services/ai-hub/test-bombs.ts'

type Tenant = Awaited<ReturnType<typeof createTenant>>
type Db = ReturnType<typeof useTestApp>['db']

const PDF_PAGES = [
  ['Snakebite Market Report 2025'],
  ['CroFab usage in Texas reached 1,234 vials last year.', 'Dallas General Hospital treated 87 envenomation cases.'],
  ['Anavip gained share in Arizona, where purchases rose to 455 vials.'],
]

async function authFor(tenant: Tenant, index = 0) {
  return { authorization: `Bearer ${await loginTokenFor(tenant.users[index]!, tenant.company.company_name)}` }
}

/** Server-sent events of a response body: [{ event, data }]. */
function eventsOf(text: string): { event: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? ''
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as unknown
      return { event, data }
    })
}

/** Independent recount of a user's context from the tables. */
async function recount(db: Db, userId: number) {
  const [row] = await db.pool
    .query<{ documents: number; tokens: number; page_tokens: number; pins: number }>(
      `SELECT (SELECT count(*)::int FROM ai_documents WHERE user_id = $1) AS documents,
              (SELECT coalesce(sum(tokens), 0)::int FROM ai_documents WHERE user_id = $1) AS tokens,
              (SELECT coalesce(sum(p.tokens), 0)::int FROM ai_document_pages p JOIN ai_documents d ON d.id = p.document_id WHERE d.user_id = $1) AS page_tokens,
              (SELECT count(*)::int FROM ai_pins WHERE user_id = $1) AS pins`,
      [userId],
    )
    .then((result) => result.rows)
  return row!
}

const statePin = (key = 'TX', name = 'Texas') => ({
  type: 'state' as const,
  entityKey: key,
  source: 'ATLAS' as const,
  data: { entity: { name }, display_name: name, metrics: { 'Total Patients': 5120, 'Payer Mix Commercial': '41.2%' } },
})

describe('AI Hub (offline analyst)', () => {
  const ctx = useTestApp()
  let tenant: Tenant
  let other: Tenant
  let auth: Record<string, string>
  let pdf: Buffer

  beforeAll(async () => {
    tenant = await createTenant(ctx.db, {
      roles: ['user', 'citrus', 'member'],
      products: [{ product_group: 'ATLAS', limit: 100 }, { product_group: 'NOVA' }],
    })
    other = await createTenant(ctx.db, { roles: ['user'] })
    auth = await authFor(tenant)
    pdf = await pdfOf(PDF_PAGES)
  })

  const upload = (headers: Record<string, string>, files: [string, Buffer][]) => {
    const call = request(ctx.app.server).post('/api/ai-hub/documents').set(headers)
    for (const [name, bytes] of files) call.attach('files', bytes, name)
    return call
  }

  it('uploads every format at once, page by page, counted in tokens and full-text indexed', async () => {
    const files: [string, Buffer][] = [
      ['Market Report.pdf', pdf],
      ['Territory Plan.docx', await docxOf([['Visit Dallas General Hospital in May.'], ['Budget for Arizona is flat.']])],
      ['Review.pptx', await pptxOf([['Quarterly review'], ['Hire two reps in Oklahoma.']])],
      [
        'Accounts.xlsx',
        await xlsxOf([
          {
            name: 'Top accounts',
            rows: [
              ['Account', 'Cases'],
              ['Tucson Medical Center', 31],
            ],
          },
        ]),
      ],
      ['notes.txt', Buffer.from('Call the pharmacy director at Tucson Medical Center.')],
    ]
    const response = await upload(auth, files)
    expect(response.status).toBe(201)
    const documents = response.body.documents as {
      id: string
      title: string
      type: string
      pages: number
      pageUnit: string
      tokens: number
      size: number
    }[]
    expect(documents.map((d) => [d.title, d.type, d.pages, d.pageUnit])).toEqual([
      ['Market Report', 'pdf', 3, 'page'],
      ['Territory Plan', 'docx', 2, 'page'],
      ['Review', 'pptx', 2, 'slide'],
      ['Accounts', 'xlsx', 1, 'sheet'],
      ['notes', 'txt', 1, 'page'],
    ])
    expect(documents.map((d) => d.size)).toEqual(files.map(([, bytes]) => bytes.length))

    const counts = await recount(ctx.db, tenant.users[0]!.id)
    expect(counts.documents).toBe(5)
    expect(counts.tokens).toBe(documents.reduce((sum, d) => sum + d.tokens, 0))
    expect(counts.page_tokens).toBe(counts.tokens)
    const page = await ctx.db.pool.query<{ text: string }>(
      `SELECT p.text FROM ai_document_pages p JOIN ai_documents d ON d.id = p.document_id
       WHERE d.user_id = $1 AND d.title = 'Market Report' AND p.page_number = 2`,
      [tenant.users[0]!.id],
    )
    expect(page.rows[0]!.text).toContain('CroFab usage in Texas reached 1,234 vials last year.')
    const indexed = await ctx.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ai_document_pages p JOIN ai_documents d ON d.id = p.document_id
       WHERE d.user_id = $1 AND p.search @@ to_tsquery('english', 'hospitals')`,
      [tenant.users[0]!.id],
    )
    expect(indexed.rows[0]!.n).toBe(2) // 'Hospital' on PDF page 2 and on the Word document's first page (stemmed)
    // the pages' search column has its GIN index, and the planner can answer the analyst's query with it
    const index = await ctx.db.pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'ai_document_pages' AND indexname = 'ai_document_pages_search'`,
    )
    expect(index.rows[0]?.indexdef).toMatch(/USING gin \(search\)/)
    const client = await ctx.db.pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('SET LOCAL enable_seqscan = off')
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT document_id FROM ai_document_pages WHERE search @@ to_tsquery('english', 'crofab | hospitals')`,
      )
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('ai_document_pages_search')
    } finally {
      await client.query('ROLLBACK')
      client.release()
    }

    const context = await request(ctx.app.server).get('/api/ai-hub/context').set(auth)
    expect(context.status).toBe(200)
    expect(context.body.totalTokens).toBe(counts.tokens)
    expect(context.body.maxTokens).toBe(AI_MAX_CONTEXT_TOKENS)
    expect(context.body.documents).toHaveLength(5)
  })

  it('refuses a mislabelled, an empty or an unsupported file, and stores nothing of that upload', async () => {
    const before = await recount(ctx.db, tenant.users[0]!.id)
    const mislabelled = await upload(auth, [
      ['fine.txt', Buffer.from('A fine text file.')],
      ['slides.pptx', pdf],
    ])
    expect(mislabelled.status).toBe(422)
    expect(mislabelled.body).toEqual({
      message: AI_HUB_MESSAGES.mislabelled('slides.pptx', 'pptx'),
      code: AI_HUB_ERROR_CODES.mislabelled,
      status: 422,
    })
    const empty = await upload(auth, [['empty.txt', Buffer.alloc(0)]])
    expect([empty.status, empty.body.message]).toEqual([422, AI_HUB_MESSAGES.emptyDocument('empty.txt')])
    const unsupported = await upload(auth, [['virus.exe', Buffer.from('MZ')]])
    expect([unsupported.status, unsupported.body.message]).toEqual([415, AI_HUB_MESSAGES.unsupportedType('virus.exe')])
    const none = await request(ctx.app.server).post('/api/ai-hub/documents').set(auth).field('note', 'no file')
    expect([none.status, none.body.message]).toEqual([400, AI_HUB_MESSAGES.noFiles])
    expect(await recount(ctx.db, tenant.users[0]!.id)).toEqual(before)
  })

  it('refuses a password-protected PDF, Word, Excel or PowerPoint file, and stores nothing of that upload', async () => {
    const before = await recount(ctx.db, tenant.users[0]!.id)
    const encrypted: [string, Buffer][] = [
      ['secret.pdf', await pdfOf([['Secret plan.']], { userPassword: 'pw' })],
      ['secret.docx', encryptedOffice('docx')],
      ['secret.xlsx', encryptedOffice('xlsx')],
      ['secret.pptx', encryptedOffice('pptx')],
    ]
    for (const [name, bytes] of encrypted) {
      const response = await upload(auth, [
        ['fine.txt', Buffer.from('A fine text file.')],
        [name, bytes],
      ])
      expect(response.body).toEqual({ message: AI_HUB_MESSAGES.encrypted(name), code: AI_HUB_ERROR_CODES.encrypted, status: 422 })
      expect(response.body.message).toBe(`${name} is password-protected; remove the password and upload it again`)
    }
    expect(await recount(ctx.db, tenant.users[0]!.id)).toEqual(before)
  })

  it('waits for a database busy with a data load instead of failing (the embedded one on its first start)', async () => {
    const busy = await createTenant(ctx.db, { roles: ['user'] })
    const headers = await authFor(busy)
    // A data load in the background, as on the first `npm start`: transactions of 2.2 s one after the other on
    // their own connection. On the embedded database every other statement waits for the running one, so the
    // upload's transaction waits longer to start than Prisma's default 2 s (a 500 P2028 before the fix).
    const loader = await ctx.db.pool.connect()
    let loading = true
    const load = (async () => {
      while (loading) {
        await loader.query('BEGIN')
        await loader.query('SELECT count(*) FROM ai_documents')
        await new Promise((resolve) => setTimeout(resolve, 2_200))
        await loader.query('COMMIT')
      }
    })()
    try {
      const uploaded = await upload(headers, [['notes.txt', Buffer.from('Call the pharmacy director in May.')]])
      expect([uploaded.status, uploaded.body.message]).toEqual([201, undefined])
    } finally {
      loading = false
      await load
      loader.release()
    }
    expect(await recount(ctx.db, busy.users[0]!.id)).toMatchObject({ documents: 1 })
  }, 120_000)

  it('answers 413 for more files than one upload takes, storing none of them', async () => {
    const before = await recount(ctx.db, tenant.users[0]!.id)
    const files = Array.from({ length: AI_MAX_FILES_PER_UPLOAD + 1 }, (_, i): [string, Buffer] => [
      `note${i}.txt`,
      Buffer.from(`Note ${i}.`),
    ])
    const response = await upload(auth, files)
    expect(response.body).toEqual({ message: AI_HUB_MESSAGES.tooManyFiles, code: 'PAYLOAD_TOO_LARGE', status: 413 })
    expect(response.body.message).toBe('Upload at most 10 files at once')
    expect(await recount(ctx.db, tenant.users[0]!.id)).toEqual(before)
  })

  it('answers 413 for a file over the documented 10 MB limit, storing nothing of the upload', async () => {
    const before = await recount(ctx.db, tenant.users[0]!.id)
    expect(AI_MAX_FILE_BYTES).toBe(10 * 1024 * 1024)
    const response = await upload(auth, [
      ['fine.txt', Buffer.from('A fine text file.')],
      ['huge.txt', Buffer.alloc(AI_MAX_FILE_BYTES + 1, 'a')],
    ])
    expect(response.status).toBe(413)
    expect(response.body).toEqual({ message: AI_HUB_MESSAGES.fileTooLarge('huge.txt'), code: 'PAYLOAD_TOO_LARGE', status: 413 })
    expect(response.body.message).toBe('huge.txt is larger than 10 MB, the largest file the AI Hub accepts')
    // exactly at the limit is accepted (the file is refused for its content only: 10 MB of one word is no PDF)
    const atLimit = await upload(auth, [['limit.pdf', Buffer.alloc(AI_MAX_FILE_BYTES, 'a')]])
    expect([atLimit.status, atLimit.body.code]).toEqual([422, AI_HUB_ERROR_CODES.mislabelled])
    expect(await recount(ctx.db, tenant.users[0]!.id)).toEqual(before)
  })

  it('pins, refuses a duplicate, reorders, unpins and clears, per user', async () => {
    const texas = await request(ctx.app.server).post('/api/ai-hub/pins').set(auth).send(statePin())
    expect(texas.status).toBe(201)
    expect(texas.body).toMatchObject({ type: 'state', entityKey: 'TX', source: 'ATLAS', order: 0, tokens: AI_TOKENS_PER_PIN })
    const duplicate = await request(ctx.app.server).post('/api/ai-hub/pins').set(auth).send(statePin())
    expect([duplicate.status, duplicate.body.message]).toEqual([409, AI_HUB_MESSAGES.alreadyPinned])
    const hospital = await request(ctx.app.server)
      .post('/api/ai-hub/pins')
      .set(auth)
      .send({
        type: 'facility',
        entityKey: '1234567890',
        source: 'NOVA',
        data: {
          entity: { name: 'Dallas General Hospital' },
          display_name: 'Dallas General Hospital',
          metrics: { 'Snakebite Cases': 87, 'CroFab Units': 310 },
        },
      })
    expect(hospital.status).toBe(201)
    expect(hospital.body.order).toBe(1)

    const reordered = await request(ctx.app.server)
      .put('/api/ai-hub/pins/order')
      .set(auth)
      .send({ ids: [hospital.body.id, texas.body.id] })
    expect(reordered.status).toBe(200)
    expect(reordered.body.pinnedInsights.map((pin: { entityKey: string }) => pin.entityKey)).toEqual(['1234567890', 'TX'])
    const partial = await request(ctx.app.server)
      .put('/api/ai-hub/pins/order')
      .set(auth)
      .send({ ids: [texas.body.id] })
    expect([partial.status, partial.body.message]).toEqual([400, AI_HUB_MESSAGES.reorderMismatch])

    // another company's user sees none of it and cannot remove it
    const stranger = await authFor(other)
    expect((await request(ctx.app.server).get('/api/ai-hub/pins').set(stranger)).body.pinnedInsights).toEqual([])
    const foreign = await request(ctx.app.server).delete(`/api/ai-hub/pins/${texas.body.id}`).set(stranger)
    expect([foreign.status, foreign.body.message]).toEqual([404, AI_HUB_MESSAGES.pinNotFound])

    const counts = await recount(ctx.db, tenant.users[0]!.id)
    expect(counts.pins).toBe(2)
    const context = await request(ctx.app.server).get('/api/ai-hub/context').set(auth)
    expect(context.body.totalTokens).toBe(counts.tokens + 2 * AI_TOKENS_PER_PIN)

    // unpin and clear (on a second user of the tenant, so the first keeps its pins for the analyst)
    const citrus = await authFor(tenant, 1)
    const first = await request(ctx.app.server).post('/api/ai-hub/pins').set(citrus).send(statePin('AZ', 'Arizona'))
    await request(ctx.app.server).post('/api/ai-hub/pins').set(citrus).send(statePin('OK', 'Oklahoma'))
    expect((await request(ctx.app.server).delete(`/api/ai-hub/pins/${first.body.id}`).set(citrus)).status).toBe(204)
    expect((await recount(ctx.db, tenant.users[1]!.id)).pins).toBe(1)
    expect((await request(ctx.app.server).delete('/api/ai-hub/pins').set(citrus)).status).toBe(204)
    expect((await recount(ctx.db, tenant.users[1]!.id)).pins).toBe(0)
  })

  it('answers from the context with verbatim citations and only numbers the context holds', async () => {
    const response = await request(ctx.app.server).post('/api/ai-hub/generate').set(auth).send({
      prompt: 'How many CroFab vials were used in Texas, and how many envenomation cases did Dallas General Hospital treat?',
      productGroup: 'ATLAS',
    })
    expect(response.status).toBe(200)
    const answer = response.body as AiResponse
    expect(answer.model).toBe(OFFLINE_MODEL)
    expect(answer.answered).toBe(true)
    expect(answer.tokensUsed).toBeGreaterThan(0)
    expect(answer.citations.length).toBeGreaterThan(0)
    expect(answer.citations).toContainEqual(
      expect.objectContaining({ documentTitle: 'Market Report', page: 2, text: 'CroFab usage in Texas reached 1,234 vials last year.' }),
    )
    for (const citation of answer.citations) {
      const { rows } = await ctx.db.pool.query<{ text: string; title: string }>(
        'SELECT p.text, d.title FROM ai_document_pages p JOIN ai_documents d ON d.id = p.document_id WHERE d.id = $1 AND p.page_number = $2',
        [citation.documentId, citation.page],
      )
      expect(rows[0]!.title).toBe(citation.documentTitle)
      expect(rows[0]!.text).toContain(citation.text)
      expect(answer.content).toContain(citation.marker)
    }
    expect(answer.content).toContain('1,234')
    expect(answer.content).toContain('Dallas General Hospital') // the pinned hospital matches the question
    expect(answer.insightsUsed).toContain('Dallas General Hospital')
    // every number of the answer is in the context (pages with their page labels, pinned metrics)
    const { rows } = await ctx.db.pool.query<{ text: string }>(
      `SELECT d.title || ' page ' || p.page_number || ' slide ' || p.page_number || ' sheet ' || p.page_number || E'\n' || p.text AS text
       FROM ai_document_pages p JOIN ai_documents d ON d.id = p.document_id WHERE d.user_id = $1`,
      [tenant.users[0]!.id],
    )
    const pins = await ctx.db.pool.query<{ data: unknown }>('SELECT data FROM ai_pins WHERE user_id = $1', [tenant.users[0]!.id])
    const known = numbersIn(rows.map((row) => row.text).join('\n') + JSON.stringify(pins.rows))
    for (const number of numbersIn(answer.content)) expect(known, `number ${number}`).toContain(number)
    expect(answer.unverifiedNumbers).toEqual([])
  })

  it('quotes a sentence once when a document was uploaded twice', async () => {
    const twice = await createTenant(ctx.db, { roles: ['user'] })
    const headers = await authFor(twice)
    for (let i = 0; i < 2; i++) expect((await upload(headers, [['Market Report.pdf', pdf]])).status).toBe(201)
    const response = await request(ctx.app.server)
      .post('/api/ai-hub/generate')
      .set(headers)
      .send({ prompt: 'CroFab usage in Texas', productGroup: 'ATLAS' })
    const texts = (response.body as AiResponse).citations.map((citation) => citation.text)
    expect(texts).toContain('CroFab usage in Texas reached 1,234 vials last year.')
    expect(new Set(texts).size).toBe(texts.length)
  })

  it('says so when the context does not answer', async () => {
    const response = await request(ctx.app.server)
      .post('/api/ai-hub/generate')
      .set(auth)
      .send({ prompt: 'What is the capital of France?', productGroup: 'ATLAS' })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ answered: false, content: AI_HUB_MESSAGES.cannotAnswer, citations: [] })
  })

  it('streams the answer as server-sent events', async () => {
    const response = await request(ctx.app.server)
      .post('/api/ai-hub/generate/stream')
      .set(auth)
      .send({ prompt: 'Anavip purchases in Arizona', productGroup: 'ATLAS' })
      .buffer(true)
      .parse((res, callback) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => callback(null, text))
      })
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toContain('text/event-stream')
    const events = eventsOf(response.body as string)
    const done = events.at(-1)!
    expect(done.event).toBe('done')
    const answer = done.data as AiResponse
    expect(
      events
        .filter((e) => e.event === 'delta')
        .map((e) => (e.data as { text: string }).text)
        .join(''),
    ).toBe(answer.content)
    expect(answer.citations[0]).toMatchObject({
      documentTitle: 'Market Report',
      page: 3,
      text: 'Anavip gained share in Arizona, where purchases rose to 455 vials.',
    })
  })

  it('counts template uses and meters the app the AI Hub is used from', async () => {
    const usage = async (product: string) =>
      (
        await ctx.db.pool.query<{ used: number }>(
          'SELECT coalesce(sum(used), 0)::int AS used FROM credit_usage WHERE company_id = $1 AND product_group = $2',
          [tenant.company.id, product],
        )
      ).rows[0]!.used
    const atlasBefore = await usage('ATLAS')
    const templates = await request(ctx.app.server).get('/api/ai-hub/templates').set(auth)
    const market = templates.body.templates.find((t: { id: string }) => t.id === 'market-analysis')
    expect(market).toMatchObject({ name: 'Market Analysis', category: 'analysis', quickStart: true, usageCount: 0 })
    expect(new Set(templates.body.templates.map((t: { category: string }) => t.category))).toEqual(
      new Set(['analysis', 'strategy', 'communication', 'planning']),
    )
    expect(templates.body.templates.filter((t: { quickStart: boolean }) => t.quickStart).map((t: { name: string }) => t.name)).toEqual([
      'Market Analysis',
      'Territory Overview',
    ])
    const answer = await request(ctx.app.server)
      .post('/api/ai-hub/generate')
      .set(auth)
      .send({ prompt: market.prompt, templateId: 'market-analysis', productGroup: 'ATLAS' })
    expect(answer.status).toBe(200)
    expect(answer.body.insightsUsed).toEqual(['Dallas General Hospital', 'Texas']) // a template takes in every pinned insight
    const after = await request(ctx.app.server).get('/api/ai-hub/templates').set(auth)
    expect(after.body.templates.find((t: { id: string }) => t.id === 'market-analysis').usageCount).toBe(1)
    const { rows } = await ctx.db.pool.query<{ uses: number }>(
      'SELECT uses FROM ai_template_uses WHERE user_id = $1 AND template_id = $2',
      [tenant.users[0]!.id, 'market-analysis'],
    )
    expect(rows[0]!.uses).toBe(1)
    expect(await usage('ATLAS')).toBe(atlasBefore + 1)

    // Nova is for the citrus role: a user is refused, a citrus user is metered against NOVA
    const refused = await request(ctx.app.server).post('/api/ai-hub/generate').set(auth).send({ prompt: 'Texas', productGroup: 'NOVA' })
    expect([refused.status, refused.body.message]).toEqual([403, AUTH_MESSAGES.roleDenied('user')])
    const novaBefore = await usage('NOVA')
    const citrus = await authFor(tenant, 1)
    await request(ctx.app.server).post('/api/ai-hub/pins').set(citrus).send(statePin())
    const nova = await request(ctx.app.server)
      .post('/api/ai-hub/generate')
      .set(citrus)
      .send({ prompt: 'Texas patients', productGroup: 'NOVA' })
    expect(nova.status).toBe(200)
    expect(await usage('NOVA')).toBe(novaBefore + 1)
    const unknown = await request(ctx.app.server)
      .post('/api/ai-hub/generate')
      .set(auth)
      .send({ prompt: 'x', templateId: 'nope', productGroup: 'ATLAS' })
    expect([unknown.status, unknown.body.message]).toEqual([404, AI_HUB_MESSAGES.templateNotFound])
  })

  it('refuses generation without context (taking no credit), members and companies without Atlas or Nova', async () => {
    const stranger = await authFor(other)
    const spent = async () =>
      (
        await ctx.db.pool.query<{ used: number }>('SELECT coalesce(sum(used), 0)::int AS used FROM credit_usage WHERE company_id = $1', [
          other.company.id,
        ])
      ).rows[0]!.used
    for (const path of ['/api/ai-hub/generate', '/api/ai-hub/generate/stream']) {
      const empty = await request(ctx.app.server).post(path).set(stranger).send({ prompt: 'Anything?', productGroup: 'ATLAS' })
      expect(empty.body).toEqual({ message: AI_HUB_MESSAGES.noContext, code: AI_HUB_ERROR_CODES.noContext, status: 422 })
    }
    expect(await spent()).toBe(0)
    const member = await request(ctx.app.server)
      .get('/api/ai-hub/context')
      .set(await authFor(tenant, 2))
    expect([member.status, member.body.message]).toEqual([403, AUTH_MESSAGES.roleDenied('member')])
    const noProduct = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    const denied = await request(ctx.app.server)
      .get('/api/ai-hub/context')
      .set(await authFor(noProduct))
    expect(denied.status).toBe(403)
    expect((await request(ctx.app.server).get('/api/ai-hub/context')).status).toBe(401)
  })

  it("works with the owner's API key and refuses a link token whose api_endpoints lack it", async () => {
    const key = generateApiKey()
    await ctx.db.prisma.apiToken.create({
      data: { user_id: tenant.users[0]!.id, company_id: tenant.company.id, name: 'ai', token_hash: hashApiKey(key), prefix: maskOf(key) },
    })
    const viaKey = await request(ctx.app.server)
      .get('/api/ai-hub/pins')
      .set({ authorization: `Bearer ${key}` })
    expect(viaKey.status).toBe(200)
    expect(viaKey.body.pinnedInsights.map((pin: { entityKey: string }) => pin.entityKey)).toEqual(['1234567890', 'TX'])
    for (const endpoints of [[], ['GET /ai-hub/context']]) {
      const token = await shareTokenFor(ctx.db, tenant, {
        client_routes: ['/atlas/generic/results'],
        api_endpoints: endpoints,
        role: 'user',
      })
      const response = await request(ctx.app.server).get(`/api/ai-hub/context?token=${token}`)
      // a context is a signed-in user's own: a link grants none of it, listed or not
      expect(response.status).toBe(403)
    }
  })

  it("refuses an answer once the app's credits are spent", async () => {
    const limited = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'ATLAS', limit: 1 }] })
    const headers = await authFor(limited)
    expect((await request(ctx.app.server).post('/api/ai-hub/pins').set(headers).send(statePin())).status).toBe(201)
    const first = await request(ctx.app.server).post('/api/ai-hub/generate').set(headers).send({ prompt: 'Texas', productGroup: 'ATLAS' })
    expect(first.status).toBe(200)
    const second = await request(ctx.app.server).post('/api/ai-hub/generate').set(headers).send({ prompt: 'Texas', productGroup: 'ATLAS' })
    expect([second.status, second.body.code]).toEqual([402, 'CREDITS_EXHAUSTED'])
    const { rows } = await ctx.db.pool.query<{ used: number }>(
      "SELECT coalesce(sum(used), 0)::int AS used FROM credit_usage WHERE company_id = $1 AND product_group = 'ATLAS'",
      [limited.company.id],
    )
    expect(rows[0]!.used).toBe(1)
  })

  it('enforces the 32,000-token budget, naming the budget and the overflow', async () => {
    const budget = await createTenant(ctx.db, { roles: ['user'] })
    const headers = await authFor(budget)
    // 31,950 tokens: ' word' is one cl100k token
    const big = Buffer.from('word'.concat(' word'.repeat(31_949)))
    const first = await upload(headers, [['big.txt', big]])
    expect(first.status).toBe(201)
    expect(first.body.documents[0].tokens).toBe(31_950)
    const over = await upload(headers, [['more.txt', Buffer.from('word'.concat(' word'.repeat(99)))]])
    expect(over.body).toEqual({ message: AI_HUB_MESSAGES.budgetExceeded(32_050, 50), code: AI_HUB_ERROR_CODES.budgetExceeded, status: 422 })
    expect(over.body.message).toBe(
      'The AI context would hold 32,050 tokens, 50 over the 32,000-token budget. Remove documents or pinned insights first.',
    )
    const pin = await request(ctx.app.server).post('/api/ai-hub/pins').set(headers).send(statePin())
    expect(pin.body).toEqual({ message: AI_HUB_MESSAGES.budgetExceeded(32_050, 50), code: AI_HUB_ERROR_CODES.budgetExceeded, status: 422 })
    expect(await recount(ctx.db, budget.users[0]!.id)).toMatchObject({ documents: 1, tokens: 31_950, pins: 0 })
    // removing the document gives the tokens back
    const removed = await request(ctx.app.server).delete(`/api/ai-hub/documents/${first.body.documents[0].id}`).set(headers)
    expect(removed.status).toBe(204)
    expect(await recount(ctx.db, budget.users[0]!.id)).toMatchObject({ documents: 0, tokens: 0, page_tokens: 0 })
    const again = await request(ctx.app.server).delete(`/api/ai-hub/documents/${first.body.documents[0].id}`).set(headers)
    expect([again.status, again.body.message]).toEqual([404, AI_HUB_MESSAGES.documentNotFound])
  })
})

// ---- the OpenAI-compatible path ------------------------------------------------------------------

describe('AI Hub (OpenAI-compatible endpoint)', () => {
  let server: Server
  const requests: {
    url: string
    authorization: string | undefined
    body: { model: string; stream: boolean; messages: { role: string; content: string }[] }
  }[] = []
  let mode: 'ok' | 'fail' | 'midstream' = 'ok'

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let raw = ''
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
      req.on('end', () => {
        requests.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw) })
        if (mode === 'fail') {
          res.writeHead(429, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests' } }))
          return
        }
        if (mode === 'midstream') {
          // the stream starts, then the provider reports an error in it (as OpenAI does for a server error mid-answer)
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write(`data: ${JSON.stringify({ model: 'test-model-2', choices: [{ index: 0, delta: { content: 'Texas used ' } }] })}\n\n`)
          res.end(`data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request' } })}\n\n`)
          return
        }
        // cite the page that holds the sentence about Texas
        const system = JSON.parse(raw).messages[0].content as string
        const marker = /(\[S\d+\]) Market Report, page 2/.exec(system)?.[1] ?? '[S1]'
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        const pieces = ['Texas used ', '1,234 CroFab vials ', marker, ', about 99 more than planned.']
        for (const piece of pieces) {
          res.write(`data: ${JSON.stringify({ model: 'test-model-2', choices: [{ index: 0, delta: { content: piece } }] })}\n\n`)
        }
        res.write(
          `data: ${JSON.stringify({ model: 'test-model-2', choices: [], usage: { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 } })}\n\n`,
        )
        res.end('data: [DONE]\n\n')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  })
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve))
  })
  const ctx = useTestApp(() => {
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    return { AI_BASE_URL: `http://127.0.0.1:${port}/v1`, AI_API_KEY: 'sk-test-key', AI_MODEL: 'test-model' }
  })
  let auth: Record<string, string>
  let tenant: Tenant

  beforeAll(async () => {
    tenant = await createTenant(ctx.db, { roles: ['user'] })
    auth = await authFor(tenant)
    const response = await request(ctx.app.server)
      .post('/api/ai-hub/documents')
      .set(auth)
      .attach('files', await pdfOf(PDF_PAGES), 'Market Report.pdf')
    expect(response.status).toBe(201)
  })

  it('streams the model answer with citations, the model and its token count', async () => {
    mode = 'ok'
    const response = await request(ctx.app.server)
      .post('/api/ai-hub/generate/stream')
      .set(auth)
      .send({ prompt: 'CroFab in Texas?', productGroup: 'ATLAS' })
      .buffer(true)
      .parse((res, callback) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => callback(null, text))
      })
    expect(response.status).toBe(200)
    const events = eventsOf(response.body as string)
    expect(events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text)).toEqual([
      'Texas used ',
      '1,234 CroFab vials ',
      '[S2]',
      ', about 99 more than planned.',
    ])
    const answer = events.at(-1)!.data as AiResponse
    expect(events.at(-1)!.event).toBe('done')
    expect(answer.model).toBe('test-model-2')
    expect(answer.tokensUsed).toBe(320)
    expect(answer.citations).toEqual([
      expect.objectContaining({
        documentTitle: 'Market Report',
        page: 2,
        text: 'CroFab usage in Texas reached 1,234 vials last year.',
        marker: '[S2]',
      }),
    ])
    // 99 is not in the context: it is flagged and replaced
    expect(answer.unverifiedNumbers).toEqual(['99'])
    expect(answer.content).toBe(`Texas used 1,234 CroFab vials [S2], about ${UNVERIFIED_NUMBER} more than planned.`)

    const sent = requests.at(-1)!
    expect(sent.url).toBe('/v1/chat/completions')
    expect(sent.authorization).toBe('Bearer sk-test-key')
    expect(sent.body).toMatchObject({ model: 'test-model', stream: true })
    expect(sent.body.messages[0]!.content).toContain('CroFab usage in Texas reached 1,234 vials last year.')
    expect(sent.body.messages[1]).toEqual({ role: 'user', content: 'CroFab in Texas?' })
  })

  it('gives a clear message when the provider fails, keeps the context and refunds the credit', async () => {
    mode = 'fail'
    const detail = 'HTTP 429: Rate limit reached for requests'
    const plain = await request(ctx.app.server)
      .post('/api/ai-hub/generate')
      .set(auth)
      .send({ prompt: 'CroFab in Texas?', productGroup: 'ATLAS' })
    expect(plain.body).toEqual({ message: AI_HUB_MESSAGES.providerError(detail), code: AI_HUB_ERROR_CODES.providerError, status: 503 })
    const streamed = await request(ctx.app.server)
      .post('/api/ai-hub/generate/stream')
      .set(auth)
      .send({ prompt: 'CroFab in Texas?', productGroup: 'ATLAS' })
      .buffer(true)
      .parse((res, callback) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => callback(null, text))
      })
    expect(eventsOf(streamed.body as string)).toEqual([
      { event: 'error', data: { message: AI_HUB_MESSAGES.providerError(detail), code: AI_HUB_ERROR_CODES.providerError, status: 503 } },
    ])
    mode = 'midstream'
    const broken = await request(ctx.app.server)
      .post('/api/ai-hub/generate/stream')
      .set(auth)
      .send({ prompt: 'CroFab in Texas?', productGroup: 'ATLAS' })
      .buffer(true)
      .parse((res, callback) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => callback(null, text))
      })
    const midstream = AI_HUB_MESSAGES.providerError('The server had an error while processing your request')
    expect(midstream).toBe(
      'The AI provider could not answer (The server had an error while processing your request). Your documents and pinned insights are kept; try again.',
    )
    expect(eventsOf(broken.body as string)).toEqual([
      { event: 'delta', data: { text: 'Texas used ' } },
      { event: 'error', data: { message: midstream, code: AI_HUB_ERROR_CODES.providerError, status: 503 } },
    ])
    const context = await request(ctx.app.server).get('/api/ai-hub/context').set(auth)
    expect(context.body.documents).toHaveLength(1)
    const { rows } = await ctx.db.pool.query<{ used: number }>(
      "SELECT coalesce(sum(used), 0)::int AS used FROM credit_usage WHERE company_id = $1 AND product_group = 'ATLAS'",
      [tenant.company.id],
    )
    expect(rows[0]!.used).toBe(1) // the successful answer only
  })
})

// ---- upload bombs and malformed bodies (issue 32 §1, §9) ------------------------------------------

describe('AI Hub uploads that unpack to more than they may', () => {
  const MB = 1024 * 1024
  const lines: string[] = []
  let app: Awaited<ReturnType<typeof buildApp>>
  let db: Db
  let tenant: Tenant
  let auth: Record<string, string>

  beforeAll(async () => {
    db = testDatabase()
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'))
        done()
      },
    })
    app = await buildApp(testConfig({}, { OUTBOX_POLL_INTERVAL_MS: '0' }), { logger: { level: 'info', stream }, database: db })
    await app.listen({ port: 0, host: '127.0.0.1' })
    tenant = await createTenant(db, { roles: ['user'], products: [{ product_group: 'ATLAS', limit: 100 }] })
    auth = await authFor(tenant)
    // the extraction threads started (loading their code is not what is measured below)
    const warm = await request(app.server)
      .post('/api/ai-hub/documents')
      .set(auth)
      .attach('files', await docxOf([['Warm up.']]), 'warm.docx')
    expect(warm.status).toBe(201)
  }, 180_000)
  afterAll(async () => {
    await app.close()
    await db.close()
  })

  const errorLogs = () => lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)
  const upload = (name: string, bytes: Buffer) => request(app.server).post('/api/ai-hub/documents').set(auth).attach('files', bytes, name)

  it('answers each bomb with a 4xx envelope within 5 s and stores nothing of it', async () => {
    const before = await recount(db, tenant.users[0]!.id)
    const cases: [string, Buffer, string][] = [
      ['text.docx', docxBomb(200 * MB), AI_HUB_ERROR_CODES.unpacksTooLarge], // the issue's: 200 MB of text
      ['spaces.docx', docxBomb(400 * MB, { fill: ' ' }), AI_HUB_ERROR_CODES.unpacksTooLarge], // 400 MB of spaces (was 201)
      ['liar.docx', docxBomb(200 * MB, { lie: true }), AI_HUB_ERROR_CODES.unpacksTooLarge],
      ['liar.pptx', pptxBomb(200 * MB, { lie: true }), AI_HUB_ERROR_CODES.unpacksTooLarge],
      ['liar.xlsx', xlsxBomb(400 * MB, { lie: true }), AI_HUB_ERROR_CODES.unpacksTooLarge],
      ['drawn.pdf', pdfBomb(200 * MB), AI_HUB_ERROR_CODES.unpacksTooLarge],
      ['word.docx', docxBomb(30 * MB), AI_HUB_ERROR_CODES.budgetExceeded], // within the unpacked cap, past the text cap
      ['text.pdf', pdfBomb(4 * MB), AI_HUB_ERROR_CODES.budgetExceeded],
      // one 300,000-letter word: tiktoken alone took 148 s for 40,000
      ['aaaa.txt', Buffer.alloc(300_000, 'a'), AI_HUB_ERROR_CODES.budgetExceeded],
    ]
    for (const [name, bytes, code] of cases) {
      const started = performance.now()
      const response = await upload(name, bytes)
      const ms = performance.now() - started
      expect([name, response.status, response.body.code]).toEqual([name, 422, code])
      expect(Object.keys(response.body).sort()).toEqual(['code', 'message', 'status'])
      expect(ms, `${name} answered in ${Math.round(ms)} ms`).toBeLessThan(5_000)
    }
    expect(await recount(db, tenant.users[0]!.id)).toEqual(before)
    expect(errorLogs()).toEqual([])
  }, 120_000)

  it('keeps /healthz answering and memory bounded while six bombs are uploaded at once', async () => {
    const bombs: [string, Buffer][] = [
      ['one.docx', docxBomb(200 * MB)],
      ['two.docx', docxBomb(200 * MB, { lie: true })],
      ['three.xlsx', xlsxBomb(400 * MB, { lie: true })],
      ['four.pptx', pptxBomb(200 * MB, { lie: true })],
      ['five.docx', docxBomb(30 * MB)],
      ['six.pdf', pdfBomb(200 * MB)],
    ]
    const idle = process.memoryUsage.rss()
    let peak = idle
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20)
    const uploads = Promise.all(bombs.map(([name, bytes]) => upload(name, bytes)))
    let settled = false
    void uploads.finally(() => (settled = true))
    const health: number[] = []
    do {
      const started = performance.now()
      const response = await request(app.server).get('/healthz')
      health.push(performance.now() - started)
      expect(response.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 50))
    } while (!settled || health.length < 3)
    const responses = await uploads
    clearInterval(sampler)
    expect(responses.map((response) => response.status)).toEqual([422, 422, 422, 422, 422, 422])
    const worst = Math.max(...health)
    const growth = (peak - idle) / MB
    console.warn(`six bombs at once: /healthz worst ${Math.round(worst)} ms over ${health.length} calls, RSS +${Math.round(growth)} MB`)
    expect(worst, `/healthz took ${Math.round(worst)} ms`).toBeLessThan(1_000)
    expect(growth, `RSS grew by ${Math.round(growth)} MB`).toBeLessThan(1_024)
  }, 120_000)

  it('answers six bombs uploaded at once within 5 s of their arrival, those no thread could take in time with 429 and Retry-After', async () => {
    // before: two were read at a time, each until the 4.5 s limit, and the last answered after 20 s
    const before = await recount(db, tenant.users[0]!.id)
    const bomb = xlsxBomb(30 * MB, { cells: true })
    const started = performance.now()
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        upload(`cells${index}.xlsx`, bomb).then((response) => ({ response, ms: performance.now() - started })),
      ),
    )
    for (const { response, ms } of responses) {
      expect([422, 429]).toContain(response.status)
      expect(ms, `${response.status} after ${Math.round(ms)} ms`).toBeLessThan(6_000)
    }
    const busy = responses.filter(({ response }) => response.status === 429)
    // two threads for six documents that each take the whole limit: most wait too long for one
    expect(busy.length).toBeGreaterThanOrEqual(1)
    for (const { response } of busy) {
      expect(response.body).toEqual({
        message: expect.stringContaining("the AI Hub's document reader is busy with other documents; try again in 5 seconds") as string,
        code: AI_HUB_ERROR_CODES.readerBusy,
        status: 429,
      })
      expect(response.headers['retry-after']).toBe('5')
    }
    expect(await recount(db, tenant.users[0]!.id)).toEqual(before)
    const openapi = await request(app.server).get('/api/openapi.json')
    expect(
      Object.keys(
        (openapi.body as { paths: Record<string, { post: { responses: object } }> }).paths['/api/ai-hub/documents']!.post.responses,
      ),
    ).toContain('429')
    expect(errorLogs()).toEqual([])
  }, 120_000)

  it('answers 400 in the envelope to a malformed multipart body, without an error in the log', async () => {
    lines.length = 0
    const body =
      '--abc\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--abc--\r\n'
    for (const [contentType, payload] of [
      ['multipart/form-data', body],
      ['multipart/form-data; boundary=xyz', body],
      ['multipart/form-data; boundary=abc', body.slice(0, 60)],
    ] as const) {
      const response = await request(app.server).post('/api/ai-hub/documents').set(auth).set('content-type', contentType).send(payload)
      expect([response.status, response.body]).toEqual([
        400,
        { message: HTTP_MESSAGES.malformedMultipart, code: ERROR_CODES.BAD_REQUEST, status: 400 },
      ])
    }
    expect(errorLogs()).toEqual([])
  })
})
