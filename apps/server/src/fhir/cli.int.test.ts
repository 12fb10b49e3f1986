import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { runCli } from '../cli/main.js'

describe('operators CLI: fhir export', { timeout: 120_000 }, () => {
  const ctx = useTestDatabase({ dataset: true })

  it('writes one NDJSON file per type with every resource, the same the HTTP export serves', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'citrus-fhir-export-'))
    try {
      let out = ''
      let err = ''
      // the progress of each type goes to the process's stderr (data/progress.ts), apart from the CLI's own output
      let progress = ''
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        progress += String(chunk)
        return true
      })
      let code: number
      try {
        code = await runCli(
          ['fhir', 'export', '--out', dir, '--type', 'Location,Organization,PractitionerRole', '--json'],
          { out: (t) => (out += t), err: (t) => (err += t) },
          ctx.db,
        )
      } finally {
        stderr.mockRestore()
      }
      expect(err).toBe('')
      expect(code).toBe(0)
      // roles: one per (clinician, network the clinician is in), one for a clinician in none (an independent recount)
      const { rows } = await ctx.db.pool.query<{ locations: number; organizations: number; roles: number; clinicians: number }>(
        `SELECT ((SELECT count(*) FROM facilities) + (SELECT count(*) FROM providers))::int AS locations,
                ((SELECT count(*) FROM facilities) + (SELECT count(*) FROM health_systems) + 2 * (SELECT count(*) FROM insurers))::int AS organizations,
                (SELECT sum(greatest(1, (SELECT count(*) FROM jsonb_each_text(p.aggregated_insurance_networks_v1) e
                   JOIN insurers i ON i.name = e.key WHERE e.value = 'true')))::int FROM providers p) AS roles,
                (SELECT count(*)::int FROM providers) AS clinicians`,
      )
      const summary = JSON.parse(out) as { files: { type: string; resources: number }[] }
      expect(summary.files.map((file) => [file.type, file.resources])).toEqual([
        ['Location', rows[0]!.locations],
        ['Organization', rows[0]!.organizations],
        ['PractitionerRole', rows[0]!.roles],
      ])
      expect(rows[0]!.roles).toBeGreaterThan(rows[0]!.clinicians)
      // the last progress line of each type, in order: every resource written, 100% of the count announced (a
      // progress line printed after the last batch may say 100% too, before the final one)
      const count = (n: number) => new Intl.NumberFormat('en-US').format(n)
      const finals = new Map(
        progress
          .split(/[\r\n]+/)
          .filter((line) => / 100% /.test(line))
          .map((line) => line.trim().split(/\s+/).slice(0, 3))
          .map((fields) => [fields[0], fields] as const),
      )
      expect([...finals.values()]).toEqual([
        ['Location', count(rows[0]!.locations), 'rows'],
        ['Organization', count(rows[0]!.organizations), 'rows'],
        ['PractitionerRole', count(rows[0]!.roles), 'rows'],
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
