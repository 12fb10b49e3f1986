import type { FastifyInstance } from 'fastify'
import { novaEngine } from '../../engines/nova/index.js'
import { warmEachVersion } from '../../engines/warm.js'

/**
 * Builds Nova's data of each data version as soon as the version exists (engines/warm.ts), so the first map after a
 * start or a data load does not wait for it (issue 33 item 14: 0.7 s of the national map's first answer).
 */
export function warmNovaData(app: FastifyInstance): void {
  warmEachVersion(app, {
    done: 'Nova data built',
    failed: 'building the Nova data failed; the first Nova request builds it',
    warm: async (pool, version) => {
      await novaEngine.build(pool, version, true)
    },
  })
}
