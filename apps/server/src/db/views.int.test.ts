import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { VIEW_COLUMNS, type ValueKind, type ViewName } from './views.ts'

const VIEWS = Object.keys(VIEW_COLUMNS) as ViewName[]

/** The value node-postgres gives a column of each type (format_type's name without its modifier), by pg-types' default parsers. */
const SCALAR_KINDS: Record<string, ValueKind> = {
  smallint: 'number',
  integer: 'number',
  real: 'number',
  'double precision': 'number',
  bigint: 'string',
  numeric: 'string',
  text: 'string',
  character: 'string',
  'character varying': 'string',
  boolean: 'boolean',
  date: 'date',
  'timestamp without time zone': 'date',
  'timestamp with time zone': 'date',
}
/** ... and of an array of each: as its elements', but numeric[] is parsed as floats (pg-types' parseFloatArray). */
const ARRAY_KINDS: Record<string, ValueKind> = {
  ...Object.fromEntries(Object.entries(SCALAR_KINDS).map(([type, kind]) => [type, `${kind}[]` as ValueKind])),
  numeric: 'number[]',
}

/** The value node-postgres gives a column of this type (format_type's name); undefined for a type not listed here. */
function kindOfPgType(type: string): ValueKind | undefined {
  const base = type.replace(/\(\d+(,\d+)?\)/, '')
  return base.endsWith('[]') ? ARRAY_KINDS[base.slice(0, -2)] : SCALAR_KINDS[base]
}

/** The kind of a value as read (null for NULL). */
function kindOfValue(value: unknown): string {
  if (value === null) return 'null'
  if (value instanceof Date) return 'date'
  if (Array.isArray(value)) {
    const kinds = [...new Set(value.filter((v) => v !== null).map(kindOfValue))]
    return kinds.length === 1 ? `${kinds[0]}[]` : `[${kinds.join(',')}]`
  }
  return typeof value
}

const declared = (view: ViewName) => Object.entries(VIEW_COLUMNS[view]) as [string, string][]
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`

describe('the views of the migration SQL (db/views.ts, the view blocks of prisma/schema.prisma)', () => {
  const ctx = useTestDatabase()

  it('lists every view, materialised view and mv_* table the migrations create', async () => {
    // information_schema does not list materialised views; pg_class does. PostGIS's own views are the extension's.
    const { rows } = await ctx.db.pool.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       WHERE (c.relkind IN ('v', 'm') OR (c.relkind IN ('r', 'p') AND c.relname LIKE 'mv\\_%'))
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
       ORDER BY c.relname`,
    )
    expect(rows.map((r) => r.relname)).toEqual([...VIEWS].sort())
  })

  it("declares each view's columns in the database's order with the kind of value its type is read as", async () => {
    const { rows } = await ctx.db.pool.query<{ relation: string; column: string; type: string }>(
      `SELECT c.relname AS relation, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       WHERE c.relname = ANY($1::text[])
       ORDER BY c.relname, a.attnum`,
      [VIEWS],
    )
    const inDatabase = Object.fromEntries(
      VIEWS.map((view) => [
        view,
        rows.filter((r) => r.relation === view).map((r) => [r.column, kindOfPgType(r.type) ?? `unmapped PostgreSQL type ${r.type}`]),
      ]),
    )
    const inDeclaration = Object.fromEntries(
      VIEWS.map((view) => [view, declared(view).map(([column, kind]) => [column, kind.replace(/ \| null$/, '')])]),
    )
    expect(inDatabase).toEqual(inDeclaration)
  })
})

describe('the views of the migration SQL on the test dataset', () => {
  const ctx = useTestDatabase({ dataset: true })

  it('reads values of the declared kinds, NULL only where declared nullable (the test dataset)', async () => {
    const read: Record<string, Record<string, string>> = {}
    const expected: Record<string, Record<string, string>> = {}
    for (const view of VIEWS) {
      const columns = declared(view)
      const notNull = columns.filter(([, kind]) => !kind.endsWith(' | null')).map(([column]) => column)
      // one row with a value in every column where there is one, and the count of NULLs where none may be
      const { rows } = await ctx.db.pool.query<Record<string, unknown> & { _not_null_violations: string }>(
        `SELECT v.*, (SELECT count(*) FROM ${quoted(view)} w
                      WHERE ${notNull.map((c) => `w.${quoted(c)} IS NULL`).join(' OR ') || 'false'}) AS _not_null_violations
         FROM ${quoted(view)} v
         ORDER BY ${columns.map(([c]) => `(v.${quoted(c)} IS NULL)::int`).join(' + ')}
         LIMIT 1`,
      )
      const row = rows[0]
      if (!row) continue
      expect(row._not_null_violations, `${view}: rows with NULL in a column declared NOT NULL`).toBe('0')
      read[view] = Object.fromEntries(
        columns.filter(([column]) => row[column] !== null).map(([column]) => [column, kindOfValue(row[column])]),
      )
      expected[view] = Object.fromEntries(
        columns.filter(([column]) => row[column] !== null).map(([column, kind]) => [column, kind.replace(/ \| null$/, '')]),
      )
    }
    expect(read).toEqual(expected)
    // the dataset fills every view (a view without rows would check nothing here)
    expect(Object.keys(read).sort()).toEqual([...VIEWS].sort())
  })
})
