import { AI_HUB_ERROR_CODES, AI_HUB_MESSAGES, ERROR_CODES } from '@citrus/contracts'
import { afterEach, describe, expect, it } from 'vitest'
import { docxOf } from '../../../../../test/ai-hub-fixtures.ts'
import type { AppError } from '../../lib/errors.ts'
import { ExtractionPool, type ExtractionPoolOptions } from './extract-pool.ts'
import { pdfBomb, xlsxBomb } from './test-bombs.ts'
import { refusal } from './test/refusal.ts'

const MB = 1024 * 1024

describe('document extraction threads (issue 32 §1)', () => {
  const pools: ExtractionPool[] = []
  const poolOf = (options: Partial<ExtractionPoolOptions> = {}) => {
    const pool = new ExtractionPool(options)
    pools.push(pool)
    return pool
  }
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()))
  })

  it('reads a document on a thread: pages, text and tokens', async () => {
    const pool = poolOf()
    const pages = await pool.extract('plan.docx', 'docx', await docxOf([['Territory plan for Texas.'], ['Budget review in May.']]))
    expect(pages.map((page) => [page.page, page.text])).toEqual([
      [1, 'Territory plan for Texas.'],
      [2, 'Budget review in May.'],
    ])
    expect(pages.every((page) => page.tokens > 0)).toBe(true)
    expect(pool.size).toBe(1)
  }, 60_000)

  it('ends a thread that passes the time limit (a PDF of 30 MB of path operators: pdf.js lexes them for seconds), answers 422 and reads the next document', async () => {
    // pdf.js takes 1.5-8 s over this file depending on the machine's load: 300 ms is passed on any of them
    const pool = poolOf({ threads: 1, timeoutMs: 300 })
    await pool.extract('warm.docx', 'docx', await docxOf([['Warm up.']]))
    const started = performance.now()
    const error = await refusal(pool.extract('paths.pdf', 'pdf', pdfBomb(30 * MB, { paths: true })))
    expect([error.status, error.code, error.message]).toEqual([
      422,
      AI_HUB_ERROR_CODES.tooComplex,
      AI_HUB_MESSAGES.documentTooComplex('paths.pdf'),
    ])
    // near the limit, not after pdf.js has lexed the whole file
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(pool.killed).toBe(1)
    // its replacement is already loading: the next document does not wait for a thread to start from nothing
    expect([pool.replaced, pool.size]).toEqual([1, 1])
    const pages = await pool.extract('after.docx', 'docx', await docxOf([['Still reading.']]))
    expect(pages.map((page) => page.text)).toEqual(['Still reading.'])
  }, 60_000)

  it('ends a thread that passes its heap limit (ExcelJS building a cell for each of millions), answering 422', async () => {
    const pool = poolOf({ threads: 1, heapMb: 160, timeoutMs: 30_000 })
    const error = await refusal(pool.extract('cells.xlsx', 'xlsx', xlsxBomb(30 * MB, { cells: true })))
    expect([error.status, error.code]).toEqual([422, AI_HUB_ERROR_CODES.tooComplex])
    const pages = await pool.extract('after.docx', 'docx', await docxOf([['Still reading.']]))
    expect(pages.map((page) => page.text)).toEqual(['Still reading.'])
  }, 60_000)

  it('answers 503 when the threads are busy and the queue is full', async () => {
    const pool = poolOf({ threads: 1, queue: 1, timeoutMs: 300 })
    // every document made before the first is handed over: no await between the three calls lets a thread free up
    const [one, two, three] = [pdfBomb(30 * MB, { paths: true }), pdfBomb(30 * MB, { paths: true }), await docxOf([['Too many.']])]
    const slow = pool.extract('one.pdf', 'pdf', one).catch((error: unknown) => error)
    const queued = pool.extract('two.pdf', 'pdf', two).catch((error: unknown) => error)
    const busy = await refusal(pool.extract('three.docx', 'docx', three))
    expect([busy.status, busy.code, busy.message]).toEqual([503, ERROR_CODES.UNAVAILABLE, AI_HUB_MESSAGES.extractionBusy])
    // the two PDFs end as refusals too (past the time limit, or read to the end and found textless)
    expect(((await slow) as AppError).status).toBe(422)
    expect(((await queued) as AppError).status).toBe(422)
  }, 60_000)
})
