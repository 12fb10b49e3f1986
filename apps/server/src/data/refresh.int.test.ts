import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { ANALYZE_COLUMNS_PER_STATEMENT, LOADED_TABLES, MATERIALIZED_VIEWS, analyzeInParts, analyzeStatements } from './refresh.ts'

// The embedded database's load analyses a table a few columns per statement (issue 32: sign-in waits behind each
// statement): the planner must end up with the statistics one whole ANALYZE gives.
describe('analyzeInParts', () => {
  const ctx = useTestDatabase()

  /** Every pg_stats row of a table (or index) but its name, in column order. */
  const statsOf = async (relation: string) => {
    const { rows } = await ctx.db.pool.query<Record<string, unknown>>(
      `SELECT s.attname, s.inherited, s.null_frac, s.avg_width, s.n_distinct, s.most_common_vals::text, s.most_common_freqs,
              s.histogram_bounds::text, s.correlation
         FROM pg_stats s JOIN pg_attribute a ON a.attrelid = $1::regclass AND a.attname = s.attname
        WHERE s.schemaname = current_schema() AND s.tablename = $2
        ORDER BY a.attnum`,
      [`"${relation}"`, relation],
    )
    return rows
  }

  it('gives every column and every index expression the statistics of one whole ANALYZE', async () => {
    const tag = randomUUID().slice(0, 8)
    const [split, whole] = [`analyze_split_${tag}`, `analyze_whole_${tag}`]
    // two copies of the same 14 columns of mixed types and 5,000 rows (fewer than the 30,000 rows ANALYZE samples,
    // so both read every row and their statistics are equal value for value), each with an expression index
    const create = (name: string) => `
      CREATE TABLE "${name}" AS
      SELECT g AS id, g % 7 AS small, (g * 7919) % 1000 AS spread, 'name ' || (g % 313) AS label,
             CASE WHEN g % 3 = 0 THEN NULL ELSE g::text END AS sparse, g / 10.0 AS amount, (g % 2 = 0) AS flag,
             date '2024-01-01' + (g % 365) AS day, md5(g::text) AS hash, array[g % 5, g % 11] AS pair,
             jsonb_build_object('k', g % 4) AS doc, repeat('x', g % 50) AS padding, g % 97 AS bucket, -g AS negative
        FROM generate_series(1, 5000) g`
    const pool = ctx.db.pool
    const client = await pool.connect()
    try {
      for (const name of [split, whole]) await pool.query(create(name))
      // without an index on an expression: statements of a few columns each
      const statements = await analyzeStatements(client, split)
      expect(statements).toHaveLength(Math.ceil(14 / ANALYZE_COLUMNS_PER_STATEMENT))
      for (const statement of statements) expect(statement).toMatch(new RegExp(`^ANALYZE "${split}" \\(("[a-z_]+"(, )?){1,${ANALYZE_COLUMNS_PER_STATEMENT}}\\)$`))

      // with one: the same, then one statement for the expression (ANALYZE computes it only without a column list)
      for (const name of [split, whole]) await pool.query(`CREATE INDEX "${name}_lower" ON "${name}" ((lower(label)))`)
      const withExpression = await analyzeStatements(client, split)
      expect(withExpression.slice(0, -1)).toEqual(statements)
      expect(withExpression.at(-1)).toContain(`ANALYZE "${split}";`)

      await analyzeInParts(client, split)
      await pool.query(`ANALYZE "${whole}"`)
      const splitStats = await statsOf(split)
      expect(splitStats.map((row) => row.attname)).toEqual([
        'id', 'small', 'spread', 'label', 'sparse', 'amount', 'flag', 'day', 'hash', 'pair', 'doc', 'padding', 'bucket', 'negative',
      ])
      expect(splitStats).toEqual(await statsOf(whole))
      const { rows: expressions } = await pool.query<{ tablename: string; n_distinct: number }>(
        `SELECT tablename, n_distinct FROM pg_stats WHERE schemaname = current_schema() AND tablename IN ($1, $2) ORDER BY tablename`,
        [`${split}_lower`, `${whole}_lower`],
      )
      expect(expressions).toEqual([
        { tablename: `${split}_lower`, n_distinct: 313 },
        { tablename: `${whole}_lower`, n_distinct: 313 },
      ])
      // every column's statistics target as it was (the default)
      const { rows: targets } = await pool.query<{ attname: string }>(
        `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND attstattarget IS NOT NULL AND attstattarget <> -1`,
        [`"${split}"`],
      )
      expect(targets).toEqual([])
    } finally {
      for (const name of [split, whole]) await client.query(`DROP TABLE IF EXISTS "${name}"`)
      client.release()
    }
  })

  it('covers every column of the loaded tables and aggregates, and their index expressions', async () => {
    const client = await ctx.db.pool.connect()
    try {
      const whole: string[] = []
      const expressions: string[] = []
      for (const table of [...LOADED_TABLES, ...MATERIALIZED_VIEWS]) {
        const { rows } = await client.query<{ name: string }>(
          'SELECT attname::text AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum',
          [`"${table}"`],
        )
        const columns = rows.map((row) => row.name)
        const statements = await analyzeStatements(client, table)
        if (statements.length === 1 && statements[0] === `ANALYZE "${table}"`) {
          if (columns.length > ANALYZE_COLUMNS_PER_STATEMENT) whole.push(table)
          continue
        }
        // the expressions' statement last, where the table has an index on an expression
        if (statements.at(-1)!.includes(`; ANALYZE "${table}"; `)) expressions.push(table)
        const listed = statements
          .filter((statement) => !statement.includes('; '))
          .map((statement) => {
            const list = new RegExp(`^ANALYZE "${table}" \\((.*)\\)$`).exec(statement)?.[1]
            expect(list, statement).toBeDefined()
            return list!.split(', ').map((column) => column.slice(1, -1))
          })
        for (const list of listed) expect(list.length).toBeLessThanOrEqual(ANALYZE_COLUMNS_PER_STATEMENT)
        expect(listed.flat(), table).toEqual(columns)
      }
      expect(whole).toEqual([])
      // the tables with an index on an expression (prisma/migrations: lower(last_name), replace(code, '.', ''))
      expect(expressions.sort()).toEqual(['icd10_codes', 'providers'])
    } finally {
      client.release()
    }
  })
})
