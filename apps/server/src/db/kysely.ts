import { Kysely, PostgresDialect, type Selectable } from 'kysely'
import type pg from 'pg'
import type { DB } from '../generated/kysely/db.js'

export type { DB }

/**
 * A table's row as the database returns it, typed from prisma/schema.prisma (the Kysely types prisma-kysely
 * generates beside the Prisma client): data access takes its row types from here, not from hand-typed interfaces
 * (docs/decisions/0080). `Pick<Row<'providers'>, 'npi' | 'latitude'>` types a raw statement's narrower rows.
 */
export type Row<T extends keyof DB> = Selectable<DB[T]>

const builders = new WeakMap<pg.Pool, Kysely<DB>>()

/**
 * The typed query builder over a pool (the primary or a replica's), one per pool. It borrows a connection per
 * statement as pool.query does; it is never destroyed (that would end the pool, which db/database.ts owns).
 */
export function kyselyOf(pool: pg.Pool): Kysely<DB> {
  let db = builders.get(pool)
  if (!db) builders.set(pool, (db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })))
  return db
}
