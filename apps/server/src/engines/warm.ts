import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import { dataVersion } from '../lib/versioned-cache.js'

/** How often a server looks for a finished data load (its own, the CLI's or another process's). */
export const WARM_POLL_MS = 5_000

/** One engine's warm-up: what it builds for a data version, and the lines the log gets. */
export interface WarmUp {
  /** logged (info) with the version, the time taken and what `warm` returns */
  done: string
  /** logged (warn) with the error: what answers until the next data version */
  failed: string
  warm: (pool: pg.Pool, version: string) => Promise<Record<string, unknown> | void>
}

/**
 * Builds an engine's index of each data version as soon as the version exists, so the first request after a start
 * or a data load does not wait for it (issue 33 item 14): in the background from the moment the server is ready
 * (readiness and sign-in do not wait), again within WARM_POLL_MS of each finished data load, never while the
 * first-start load is running (no finished load: version `0:…`). A failed warm-up is logged; requests build what they
 * need as before, and the next version tries again.
 */
export function warmEachVersion(app: FastifyInstance, warmUp: WarmUp): void {
  const pool = app.db.pool
  let seen: string | null = null
  let busy = false
  let timer: NodeJS.Timeout | null = null
  const tick = async () => {
    if (busy) return
    busy = true
    try {
      const version = await dataVersion(pool)
      if (version === seen || version.startsWith('0:')) return
      seen = version
      const started = Date.now()
      const details = await warmUp.warm(pool, version)
      app.log.info({ version, ms: Date.now() - started, ...details }, warmUp.done)
    } catch (error) {
      app.log.warn({ err: error }, warmUp.failed)
    } finally {
      busy = false
    }
  }
  app.addHook('onReady', async () => {
    void tick()
    timer = setInterval(() => void tick(), WARM_POLL_MS)
    timer.unref()
  })
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer)
  })
}
