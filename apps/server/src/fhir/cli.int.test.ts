import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { runCli } from '../cli/main.js'

describe('operators CLI: fhir export', { timeout: 120_000 }, () => {
  const ctx = useTestDatabase({ dataset: true })

  it('writes one NDJSON file per type with every resource, the same the HTTP export serves', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'citrus-fhir-export-'))
    try {
      let out = ''
      let err = ''
      const code = await runCli(
        ['fhir', 'export', '--out', dir, '--type', 'Location,Organization', '--json'],
        { out: (t) => (out += t), err: (t) => (err += t) },
        ctx.db,
      )
      expect(err).toBe('')
      expect(code).toBe(0)
      const { rows } = await ctx.db.pool.query<{ locations: number; organizations: number }>(
        `SELECT ((SELECT count(*) FROM facilities) + (SELECT count(*) FROM providers))::int AS locations,
                ((SELECT count(*) FROM facilities) + (SELECT count(*) FROM health_systems) + 2 * (SELECT count(*) FROM insurers))::int AS organizations`,
      )
      const summary = JSON.parse(out) as { files: { type: string; resources: number }[] }
      expect(summary.files.map((file) => [file.type, file.resources])).toEqual([
        ['Location', rows[0]!.locations],
        ['Organization', rows[0]!.organizations],
      ])
      const lines = (await readFile(path.join(dir, 'Location.ndjson'), 'utf8')).trim().split('\n')
      expect(lines.length).toBe(rows[0]!.locations)
      const ids = lines.map((line) => (JSON.parse(line) as { resourceType: string; id: string }).id)
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids[0]).toBe('fac-1')

      let usage = ''
      expect(
        await runCli(['fhir', 'export', '--out', dir, '--type', 'Patient'], { out: () => undefined, err: (t) => (usage += t) }, ctx.db),
      ).toBe(2)
      expect(usage).toMatch(/Patient is not served/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
