/**
 * The operators' CLI: `npm run cli -- <command>` (also inside the Docker image).
 * Exit codes: 0 done, 1 failed, 2 bad usage or bad input. `--json` prints machine-readable output.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ZodError } from 'zod'
import { ConfigError, loadEnv } from '../config.js'
import { createDatabase, type Database } from '../db/database.js'
import { applyMigrations } from '../db/migrate.js'
import { AppError } from '../lib/errors.js'
import { MIGRATIONS_DIR, runningEmbeddedUrl, startRuntime } from '../runtime.js'
import { UsageError, type CliContext, type Command } from './command.js'
import { apikeyCommands } from './commands/apikey.js'
import { backupCommands } from './commands/backup.js'
import { companyCommands } from './commands/company.js'
import { dataCommands } from './commands/data.js'
import { seedCommands } from './commands/seed.js'
import { userCommands } from './commands/user.js'
import { fhirCommands } from '../fhir/cli.js'

export { UsageError, type CliContext, type Command } from './command.js'

const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options']

/** Every command, by noun; `runCli` only parses, connects and dispatches. */
export const COMMANDS: Command[] = [
  ...companyCommands,
  ...userCommands,
  ...apikeyCommands,
  ...seedCommands,
  ...dataCommands,
  ...backupCommands,
  ...fhirCommands,
]

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    "Citrus operators' CLI",
    '',
    'Usage: npm run cli -- <command> [options] [--json]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --help and --json. The database is DATABASE_URL, else the embedded one in DATA_DIR',
    '(shared with a running `npm start`).',
  ].join('\n')
}

export interface CliIo {
  out(text: string): void
  err(text: string): void
}

/** Runs one CLI invocation and returns its exit code (the process wrapper calls process.exit). */
export async function runCli(argv: string[], io: CliIo, database?: Database): Promise<number> {
  const words = argv.filter((arg) => !arg.startsWith('-'))
  const command = COMMANDS.find((c) => {
    const parts = c.name.split(' ')
    return parts.every((part, index) => words[index] === part)
  })
  if (!command) {
    if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
      io.out(helpText())
      return argv.length === 0 ? 2 : 0
    }
    io.err(`Unknown command: ${words.slice(0, 2).join(' ') || argv.join(' ')}\n\n${helpText()}`)
    return 2
  }
  const rest = argv.slice(argv.indexOf(command.name.split(' ').at(-1)!) + 1)
  let parsed
  try {
    parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true, strict: true })
  } catch (error) {
    io.err(`${(error as Error).message}\nUsage: npm run cli -- ${command.usage}`)
    return 2
  }
  if (parsed.values.help) {
    io.out(`${command.summary}\n\nUsage: npm run cli -- ${command.usage}\n\nOptions: --json (machine-readable output), --help`)
    return 0
  }
  const json = parsed.values.json === true
  let db = database
  let stopRuntime: (() => Promise<void>) | null = null
  try {
    const env = loadEnv()
    if (command.opensDatabase) {
      await command.run(
        { db: undefined as never, env, json, print: (value, human) => io.out(json ? JSON.stringify(value, null, 2) : human()) },
        parsed.values as Record<string, string | boolean | string[] | undefined>,
        parsed.positionals,
      )
      return 0
    }
    if (!db) {
      const url = env.DATABASE_URL ?? runningEmbeddedUrl(env)
      if (url) {
        // A fresh PostgreSQL database works straight away: the CLI applies pending migrations like the server.
        if (env.DATABASE_URL) await applyMigrations(env.DATABASE_URL, MIGRATIONS_DIR)
        // four: a PostgreSQL load runs up to four lanes side by side (data/seed.ts, docs/decisions/0055)
        db = createDatabase(url, { maxConnections: env.DATABASE_URL ? 4 : 2 })
      } else {
        const runtime = await startRuntime(env)
        db = createDatabase(runtime.config.databaseUrl, { maxConnections: 2 })
        stopRuntime = runtime.stop
      }
    }
    const context: CliContext = {
      db,
      env,
      json,
      print(value, human) {
        io.out(json ? JSON.stringify(value, null, 2) : human())
      },
    }
    await command.run(context, parsed.values as Record<string, string | boolean | string[] | undefined>, parsed.positionals)
    return 0
  } catch (error) {
    const [code, message] =
      error instanceof UsageError
        ? [2, `${error.message}\nUsage: npm run cli -- ${command.usage}`]
        : error instanceof ZodError
          ? [2, error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('\n')]
          : error instanceof AppError
            ? [error.status < 500 ? 2 : 1, error.message]
            : error instanceof ConfigError
              ? [2, error.message]
              : [1, (error as Error).message]
    io.err(json ? JSON.stringify({ error: message, exit_code: code }) : `Error: ${message}`)
    return code
  } finally {
    if (!database) await db?.close()
    await stopRuntime?.()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const code = await runCli(process.argv.slice(2), {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  })
  process.exit(code)
}
