import { createHash } from 'node:crypto'
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type pg from 'pg'
import { latestSeed } from './loads.js'
import { silentSink } from './progress.js'
import { DEFAULT_SEED, seedDataset } from './seed.js'

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * For tests: makes sure the test database holds the ci scale of the synthetic dataset (seed DEFAULT_SEED),
 * loading it once per database. Test files run in parallel processes, and the embedded database runs every
 * connection in one session (advisory locks do not exclude anyone there), so a lock file beside the system's
 * temporary files serialises the first load.
 */
export async function ensureTestDataset(pool: pg.Pool, databaseUrl: string): Promise<void> {
  const isCiSeed = async () => {
    const load = await latestSeed(pool)
    return load !== null && load.scale === 'ci' && load.seed === DEFAULT_SEED
  }
  if (await isCiSeed()) return
  const lock = path.join(tmpdir(), `citrus-test-dataset-${createHash('sha256').update(databaseUrl).digest('hex').slice(0, 16)}.lock`)
  const deadline = Date.now() + 180_000
  for (;;) {
    try {
      const fd = openSync(lock, 'wx')
      writeFileSync(fd, String(process.pid))
      closeSync(fd)
      break
    } catch {
      // held: by a live process (wait for it) or left behind by a dead one (take it over)
      let holder: number
      try {
        holder = Number(readFileSync(lock, 'utf8'))
      } catch {
        continue
      }
      if (holder > 0 && !isAlive(holder)) rmSync(lock, { force: true })
      else await new Promise((resolve) => setTimeout(resolve, 250))
      if (await isCiSeed()) return
      if (Date.now() > deadline) throw new Error(`timed out waiting for the test dataset lock ${lock}`)
    }
  }
  try {
    if (!(await isCiSeed())) await seedDataset(pool, { scale: 'ci', seed: DEFAULT_SEED, sink: silentSink })
  } finally {
    rmSync(lock, { force: true })
  }
}
