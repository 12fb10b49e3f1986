import type { FastifyInstance } from 'fastify'
import { dataVersion } from '../../lib/versioned-cache.js'
import { atlasClaims } from '../../engines/atlas/claim-index.js'

/** How often a server looks for a finished data load (its own or another process's). */
export const WARM_POLL_MS = 5_000

/**
 * Builds the Atlas indexes of each data version as soon as the version exists, so the first condition search
 * after a start or a data load is answered from the index instead of reading its rows from the database
 * (issue 33 item 14). The versions come from data_loads, so a load finished by the CLI or another server process
 * is picked up within WARM_POLL_MS. A failed build is logged; the next version tries again.
 */
export function warmAtlasIndexes(app: FastifyInstance): void {
  const pool = app.db.pool
  let seen: string | null = null
  let busy = false
  let timer: NodeJS.Timeout | null = null
  const tick = async () => {
    if (busy) return
    busy = true
    try {
      const version = await dataVersion(pool)
      // '0:…': no data load has finished yet (the first-start load is still running)
      if (version === seen || version.startsWith('0:')) return
      seen = version
      const started = Date.now()
      await atlasClaims.build(pool, version, true)
      app.log.info({ version, ms: Date.now() - started }, 'Atlas indexes built')
    } catch (error) {
      app.log.warn(
        { err: error },
        'building the Atlas indexes failed; searches read their rows from the database until the next data version',
      )
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
