import { existsSync } from 'node:fs'
import { formatCount, formatSeconds } from '../../data/progress.js'
import { DEFAULT_TIC_FETCH_TIMEOUT_SECONDS, DEFAULT_TIC_MAX_BYTES, runTicImport } from '../../data/tic/import.js'
import { type Command, UsageError } from '../command.js'

/** `data import tic` (issue 37): payers' Transparency-in-Coverage files. Listed before `data import` (its name is longer). */
export const ticImportCommand: Command = {
  name: 'data import tic',
  summary:
    "Import payers' Transparency-in-Coverage files (in-network rates, allowed amounts, or a table of contents); the same file again changes nothing",
  usage:
    'data import tic <file|directory|table-of-contents> [--payer <insurer name>] [--payer-kind commercial|blues|medicare|medicaid|military] [--fetch] [--max-bytes N] [--fetch-timeout SECONDS]   (.json or .json.gz; --fetch downloads the https locations of a table of contents; --max-bytes: per file, downloaded and decompressed, default 256 GiB; --fetch-timeout: per download, default 43200)',
  options: {
    payer: { type: 'string' },
    'payer-kind': { type: 'string' },
    fetch: { type: 'boolean' },
    'max-bytes': { type: 'string' },
    'fetch-timeout': { type: 'string' },
  },
  async run(context, values, [target]) {
    if (!target) throw new UsageError('data import tic needs a file, a directory or a table of contents')
    if (!existsSync(target)) throw new UsageError(`no such file or directory: ${target}`)
    const kinds = ['commercial', 'blues', 'medicare', 'medicaid', 'military']
    const payerKind = values['payer-kind']
    if (payerKind !== undefined && (typeof payerKind !== 'string' || !kinds.includes(payerKind)))
      throw new UsageError(`--payer-kind must be one of ${kinds.join(', ')}`)
    const maxBytes = values['max-bytes'] === undefined ? DEFAULT_TIC_MAX_BYTES : Number(values['max-bytes'])
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw new UsageError('--max-bytes must be a positive whole number')
    const fetchTimeout = values['fetch-timeout'] === undefined ? DEFAULT_TIC_FETCH_TIMEOUT_SECONDS : Number(values['fetch-timeout'])
    if (!Number.isFinite(fetchTimeout) || fetchTimeout <= 0) throw new UsageError('--fetch-timeout must be a positive number of seconds')
    const payer = typeof values.payer === 'string' && values.payer.trim() !== '' ? values.payer.trim() : undefined
    const summary = await runTicImport(context.db.pool, target, {
      ...(payer ? { payer } : {}),
      ...(typeof payerKind === 'string' ? { payerKind } : {}),
      fetch: values.fetch === true,
      maxBytes,
      fetchTimeoutSeconds: fetchTimeout,
      method: context.env.DATA_LOAD_METHOD,
    })
    context.print(summary, () =>
      [
        `Imported ${summary.files.filter((f) => f.status === 'imported').length} TiC file(s) from ${target} in ${formatSeconds(summary.seconds * 1000)}${summary.load_id === null ? ' (nothing changed: no new data version)' : ` (data load ${summary.load_id})`}:`,
        ...summary.files.map((f) =>
          [
            `  ${f.source}: ${f.status}${f.kind ? ` (${f.kind.replaceAll('_', ' ')})` : ''}`,
            ...(f.status === 'imported'
              ? [
                  `    payer ${f.payer_name}${f.plan_name ? `, plan ${f.plan_name}` : ''}: ${formatCount(f.rates)} rates, ${formatCount(f.allowed_amounts)} allowed amounts, ${formatCount(f.items)} items, ${formatCount(f.provider_groups)} provider references`,
                  `    NPIs in the directory: ${formatCount(f.npis_matched)} matched, ${formatCount(f.npis_unmatched)} not in the directory (${formatCount(f.rates_unmatched)} rates kept, unmatched); ${formatCount(f.rates_tin_only)} rates keyed by TIN only; ${formatCount(f.network_joined)} providers joined the network`,
                ]
              : []),
            ...Object.entries(f.skipped).map(([reason, n]) => `    skipped ${formatCount(n)}: ${reason}`),
          ].join('\n'),
        ),
        `  total: ${formatCount(summary.rates)} rates, ${formatCount(summary.allowed_amounts)} allowed amounts; NPIs matched ${formatCount(summary.npis_matched)}, unmatched ${formatCount(summary.npis_unmatched)}`,
      ].join('\n'),
    )
  },
}
