import { parentPort, workerData } from 'node:worker_threads'
import { AppError } from '../../lib/errors.js'
import type { ExtractJob, ExtractReply } from './extract-pool.js'
import { EXTRACT_LIMITS, extractPages, type ExtractLimits } from './extract.js'
import { countTokens } from './tokens.js'

/**
 * The thread that reads uploaded documents (extract-pool.ts): one job at a time, under the heap limit and the
 * time limit the pool gives it. A refusal goes back as its envelope; anything else as its text.
 */
const port = parentPort!
// a library's stray asynchronous error is logged, not the end of the thread; a job that never answers is
// ended by the time limit
const report = (error: unknown) => console.error('extraction thread:', error instanceof Error ? error.message : String(error))
process.on('uncaughtException', report)
process.on('unhandledRejection', report)
const limits = ((workerData as { limits?: ExtractLimits } | null)?.limits ?? EXTRACT_LIMITS) satisfies ExtractLimits

port.on('message', (job: ExtractJob) => {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength)
  extractPages(job.filename, job.type, bytes, limits).then(
    (pages) => port.postMessage({ type: 'done', job: job.job, pages } satisfies ExtractReply),
    (error: unknown) =>
      port.postMessage(
        (error instanceof AppError
          ? { type: 'refused', job: job.job, envelope: error.toEnvelope() }
          : {
              type: 'failed',
              job: job.job,
              error: error instanceof Error ? (error.stack ?? error.message) : String(error),
            }) satisfies ExtractReply,
      ),
  )
})
// ready once what the first job would otherwise load is loaded (the tokenizer's ranks, pdf.js): the time limit is the job's own
countTokens('ready')
await import('pdfjs-dist/legacy/build/pdf.mjs')
// pdf.js's "fake worker" (its parser on this thread) takes the module from here instead of importing it on first use
const PDF_WORKER = 'pdfjs-dist/legacy/build/pdf.worker.mjs' // (no type declarations)
;(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = (await import(PDF_WORKER)) as unknown
port.postMessage({ type: 'ready' } satisfies ExtractReply)
