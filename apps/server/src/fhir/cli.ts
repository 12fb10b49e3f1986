import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { once } from 'node:events'
import { type Command, UsageError, requireString } from '../cli/command.js'
import { Progress, formatCount, formatSeconds } from '../data/progress.js'
import { exportBatches, exportRowCount, parseExportType } from './export.js'
import { FhirError } from './outcome.js'
import { directoryVersion } from './search.js'

/**
 * `fhir export --out DIR [--type A,B]`: the directory as Plan-Net NDJSON, one file per type (DIR/Type.ndjson), read
 * straight from the database as GET /fhir/$export/{type}.ndjson serves it, with progress per type on stderr.
 */
export const fhirCommands: Command[] = [
  {
    name: 'fhir export',
    summary: 'Write the FHIR provider directory as NDJSON, one file per resource type',
    usage: 'fhir export --out <dir> [--type Practitioner,PractitionerRole,Organization,Location]',
    options: { out: { type: 'string' }, type: { type: 'string' } },
    async run(context, values) {
      const out = requireString(values, 'out')
      let types
      try {
        types = parseExportType(typeof values.type === 'string' ? [['_type', values.type]] : [])
      } catch (error) {
        if (error instanceof FhirError) throw new UsageError(error.message)
        throw error
      }
      await mkdir(out, { recursive: true })
      const pool = context.db.pool
      const version = await directoryVersion(pool)
      const progress = new Progress()
      const files: { type: string; file: string; resources: number }[] = []
      for (const type of types) {
        const file = path.join(out, `${type}.ndjson`)
        // the percentage goes by the rows read (a clinician is one PractitionerRole per network it is in)
        const step = progress.step(type, await exportRowCount(pool, type))
        const stream = createWriteStream(file)
        let resources = 0
        let rows = 0
        for await (const batch of exportBatches(pool, type, version)) {
          if (!stream.write(batch.text)) await once(stream, 'drain')
          resources += batch.count
          rows += batch.rows
          step.tick(batch.count, rows)
        }
        stream.end()
        await once(stream, 'finish')
        step.finish(resources)
        files.push({ type, file, resources })
      }
      context.print({ data_version: version.version, files }, () =>
        [...files.map((f) => `${f.file}: ${formatCount(f.resources)} resources`), `done in ${formatSeconds(progress.elapsedMs())}`].join(
          '\n',
        ),
      )
    },
  },
]
