import { Kysely, PostgresDialect, type Selectable } from 'kysely'
import type pg from 'pg'
import type { DB } from '../generated/kysely/db.js'

export type { DB }

/**
 * A table's or a view's row as the database returns it, typed from prisma/schema.prisma (the Kysely types
 * prisma-kysely generates beside the Prisma client): data access takes its row types from here, not from hand-typed
 * interfaces (docs/decisions/0080). `Pick<Row<'providers'>, 'npi' | 'latitude'>` types a raw statement's narrower
 * rows. The views, materialised views and aggregate tables of the migration SQL (mv_*) are the schema's `view`
 * blocks: `Row<'mv_provider_panel'>`; db/views.ts lists their columns and views.int.test.ts holds them to the
 * migrated database.
 */
export type Row<T extends keyof DB> = Selectable<DB[T]>

/** The columns of a LEFT JOIN's right side: NULL when no row matched. `LeftJoined<Pick<Row<'facilities'>, 'name'>>` */
export type LeftJoined<T> = { [K in keyof T]: T[K] | null }

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
