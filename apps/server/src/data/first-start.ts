import type pg from 'pg'
import { latestSeed } from './loads.js'
import { seedDataset } from './seed.js'

/**
 * `npm start` on a fresh data folder: the embedded database gets the demo scale of the synthetic dataset,
 * once (a completed seed in data_loads means it is there). On PostgreSQL, operators choose the scale with
 * `npm run cli -- data seed --scale ...` (docs/data.md), so a production start never loads on its own.
 */
export async function seedDataOnFirstStart(pool: pg.Pool, databaseMode: 'embedded' | 'postgres', say: (message: string) => void): Promise<void> {
  if (databaseMode !== 'embedded') return
  if (await latestSeed(pool)) return
  say('First start: loading the demo dataset into the embedded database in the background (a few minutes; progress below) ...')
  // the server answers meanwhile: batches of their own, so sign-in never waits for a whole table
  await seedDataset(pool, { scale: 'demo', shortTurns: true })
}
