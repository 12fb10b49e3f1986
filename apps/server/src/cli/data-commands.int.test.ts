import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import type { Database } from '../db/database.js'
import { REPO_ROOT } from '../runtime.js'
import { runCli } from './main.js'

async function cli(db: Database, ...argv: string[]) {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) }, db)
  return { code, out, err }
}

describe('operators CLI: data commands', () => {
  const ctx = useTestDatabase({ dataset: true })

  it('lists the data commands in the help', async () => {
    const help = await cli(ctx.db, '--help')
    for (const command of ['data seed', 'data import', 'data refresh', 'data status', 'data calibration'])
      expect(help.out).toContain(command)
  })

  it('exits 2 on bad input, naming the problem', async () => {
    const cases: [string[], RegExp][] = [
      [['data', 'seed', '--scale', 'huge'], /--scale must be one of ci, demo, full/],
      [['data', 'seed', '--seed', '-1'], /Unknown option|--seed/],
      [['data', 'seed', '--seed', 'abc'], /--seed must be a whole number/],
      [['data', 'import', 'zip', 'x.csv'], /kind must be one of nppes, nucc/],
      [['data', 'import', 'nucc'], /needs a file/],
      [['data', 'import', 'nucc', '/no/such/file.csv'], /no such file/],
      [['data', 'status', '--limit', '0'], /--limit must be a positive whole number/],
      [['data', 'calibration', '--scale', 'huge'], /--scale must be one of ci, demo, full/],
    ]
    for (const [argv, message] of cases) {
      const result = await cli(ctx.db, ...argv)
      expect(result.code, argv.join(' ')).toBe(2)
      expect(result.err, argv.join(' ')).toMatch(message)
    }
  })

  it('imports a file and prints the summary with reasons, as text and as JSON', async () => {
    const file = path.join(REPO_ROOT, 'packages/data-kit/src/parsers/fixtures/icd10cm_order_sample.txt')
    const human = await cli(ctx.db, 'data', 'import', 'icd10cm', file)
    expect(human.code).toBe(0)
    expect(human.out).toContain('read 10, written 6, rejected 4')
    expect(human.out).toContain("line 7: malformed ICD-10-CM code '1E11'")
    const json = await cli(ctx.db, 'data', 'import', 'icd10cm', file, '--json', '--max-reasons', '1')
    expect(json.code).toBe(0)
    const summary = JSON.parse(json.out)
    expect(summary).toMatchObject({ kind: 'icd10cm', read: 10, written: 6, rejected: 4 })
    expect(summary.reasons).toHaveLength(1)
  })

  it('prints the calibration report of the loaded scale: target, measured, deviation, tolerance and status', async () => {
    const text = await cli(ctx.db, 'data', 'calibration')
    expect(text.code, text.err).toBe(0)
    expect(text.out).toContain('Calibration report: scale ci')
    expect(text.out).toMatch(/Emergency department visits per 100 people a year +43\.0 +\d+\.\d +[+-]\d+\.\d % +±20 % +PASS/)
    expect(text.out).toContain('source: CDC NCHS, NHAMCS 2021')
    expect(text.out).toMatch(/\d+ pass, 0 fail/)
    const json = await cli(ctx.db, 'data', 'calibration', '--json')
    const report = JSON.parse(json.out) as { scale: string; results: { key: string; status: string; measured: number }[] }
    expect(report.scale).toBe('ci')
    expect(report.results.find((r) => r.key === 'coding.before_birth')).toMatchObject({ status: 'pass', measured: 0 })
  })

  it('shows what was loaded', async () => {
    // other test files import concurrently: look past their loads
    const status = await cli(ctx.db, 'data', 'status', '--json', '--limit', '1000')
    expect(status.code).toBe(0)
    const loads = JSON.parse(status.out) as { kind: string; scale: string; status: string }[]
    expect(loads.some((l) => l.kind === 'seed' && l.scale === 'ci' && l.status === 'done')).toBe(true)
    const human = await cli(ctx.db, 'data', 'status', '--limit', '1000')
    expect(human.out).toMatch(/seed\s+ci/)
  })
})
