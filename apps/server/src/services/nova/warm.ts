import type { FastifyInstance } from 'fastify'
import { novaEngine } from '../../engines/nova/index.js'
import { warmEachVersion } from '../../engines/warm.js'

/**
 * Builds Nova's data of each data version as soon as the version exists (engines/warm.ts), so the calls after a start
 * or a data load are soon answered from memory (meanwhile each reads its own rows from the database, 0086).
 */
export function warmNovaData(app: FastifyInstance): void {
  warmEachVersion(app, {
    done: 'Nova data built',
    failed: 'building the Nova data failed; Nova calls read their rows from the database until the next data version',
    warm: async (pool, version) => {
      await novaEngine.build(pool, version, true)
    },
  })
}
