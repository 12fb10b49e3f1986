/**
 * The operators' CLI: `npm run cli -- <command>` (also inside the Docker image).
 * Exit codes: 0 done, 1 failed, 2 bad usage or bad input. `--json` prints machine-readable output.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ROLES } from '@citrus/contracts'
import { ZodError } from 'zod'
import { ConfigError, loadEnv, type Env } from '../config.js'
import { createDatabase, type Database } from '../db/database.js'
import { CompanyService, parsePolicySpec, type CompanyRecord } from '../domain/companies.js'
import { UserService, type UserRecord } from '../domain/users.js'
import { AppError } from '../lib/errors.js'
import { applyMigrations } from '../db/migrate.js'
import { MIGRATIONS_DIR, runningEmbeddedUrl, startRuntime } from '../runtime.js'
import { DEFAULT_DEMO_PASSWORD, ensureDemoAccounts } from '../seed/demo-accounts.js'
import { dataCommands } from './data-commands.js'
import { extraCommands } from './extra-commands.js'

export class UsageError extends Error {
  override name = 'UsageError'
}

export interface CliContext {
  db: Database
  /** the validated environment (DEMO_PASSWORD, DATA_LOAD_METHOD, ...) */
  env: Env
  json: boolean
  print(value: unknown, human: () => string): void
}

export interface Command {
  name: string
  summary: string
  usage: string
  options?: ParseArgsConfig['options']
  run(context: CliContext, values: Record<string, string | boolean | string[] | undefined>, positionals: string[]): Promise<void>
}

const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options']

function requireString(values: Record<string, unknown>, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`)
  return value
}

function requireId(value: string | undefined, what: string): number {
  if (!value || !/^\d+$/.test(value)) throw new UsageError(`${what} must be a numeric id`)
  return Number(value)
}

function optionalInt(values: Record<string, unknown>, name: string): number | undefined {
  const value = values[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`)
  return Number(value)
}

function companyLines(company: CompanyRecord): string {
  const policies = company.policies.map((p) => `${p.product_group}${p.limit === null ? '' : `:${p.limit}`}`).join(', ')
  return [
    `id:                 ${company.id}`,
    `name:               ${company.company_name}`,
    `industry:           ${company.industry}`,
    `renewal cycle days: ${company.renewal_cycle_days}`,
    `activation key:     ${company.activation_key}`,
    `policies:           ${policies}`,
  ].join('\n')
}

function userLine(user: UserRecord): string {
  return `${String(user.id).padStart(5)}  ${user.email.padEnd(36)} ${user.role.padEnd(7)} company ${user.company_id}${user.is_active ? '' : '  (deactivated)'}`
}

export const COMMANDS: Command[] = [
  {
    name: 'company create',
    summary: 'Create a company; prints its activation key',
    usage: 'company create --name <name> --industry <industry> [--renewal-days 30] [--policy GROUP[:limit]]...',
    options: {
      name: { type: 'string' },
      industry: { type: 'string' },
      'renewal-days': { type: 'string' },
      policy: { type: 'string', multiple: true },
    },
    async run(context, values) {
      const policies = ((values.policy as string[] | undefined) ?? ['ATLAS']).map(parsePolicySpec)
      const company = await new CompanyService(context.db.prisma).create({
        company_name: requireString(values, 'name'),
        industry: requireString(values, 'industry'),
        renewal_cycle_days: optionalInt(values, 'renewal-days') ?? 30,
        policies,
      })
      context.print(company, () => `Company created.\n${companyLines(company)}\n\nSign-up link key: ${company.activation_key}`)
    },
  },
  {
    name: 'company list',
    summary: 'List companies',
    usage: 'company list',
    async run(context) {
      const companies = await new CompanyService(context.db.prisma).list()
      context.print(companies, () =>
        companies.length === 0
          ? 'No companies found'
          : companies.map((c) => `${String(c.id).padStart(5)}  ${c.company_name.padEnd(32)} ${c.industry.padEnd(20)} ${c.policies.map((p) => p.product_group).join(',')}`).join('\n'),
      )
    },
  },
  {
    name: 'company show',
    summary: 'Show one company',
    usage: 'company show <id>',
    async run(context, _values, [id]) {
      const company = await new CompanyService(context.db.prisma).get(requireId(id, 'company id'))
      context.print(company, () => companyLines(company))
    },
  },
  {
    name: 'company update',
    summary: 'Change a company; --policy replaces all policies',
    usage: 'company update <id> [--name <name>] [--industry <industry>] [--renewal-days N] [--policy GROUP[:limit]]...',
    options: {
      name: { type: 'string' },
      industry: { type: 'string' },
      'renewal-days': { type: 'string' },
      policy: { type: 'string', multiple: true },
    },
    async run(context, values, [id]) {
      const policies = values.policy ? (values.policy as string[]).map(parsePolicySpec) : undefined
      const renewal = optionalInt(values, 'renewal-days')
      const company = await new CompanyService(context.db.prisma).update(requireId(id, 'company id'), {
        ...(typeof values.name === 'string' ? { company_name: values.name } : {}),
        ...(typeof values.industry === 'string' ? { industry: values.industry } : {}),
        ...(renewal !== undefined ? { renewal_cycle_days: renewal } : {}),
        ...(policies ? { policies } : {}),
      })
      context.print(company, () => `Company updated.\n${companyLines(company)}`)
    },
  },
  {
    name: 'company reset-key',
    summary: 'Issue a new activation key (the old one stops working)',
    usage: 'company reset-key <id>',
    async run(context, _values, [id]) {
      const company = await new CompanyService(context.db.prisma).resetActivationKey(requireId(id, 'company id'))
      context.print(company, () => `New activation key for company ${company.id}: ${company.activation_key}`)
    },
  },
  {
    name: 'user create',
    summary: 'Create a user in a company',
    usage: `user create --email <email> --password <password> --company <id> [--role ${ROLES.join('|')}] [--phone <+1...>]`,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      company: { type: 'string' },
      role: { type: 'string' },
      phone: { type: 'string' },
    },
    async run(context, values) {
      const user = await new UserService(context.db.prisma).create({
        email: requireString(values, 'email'),
        password: requireString(values, 'password'),
        company_id: requireId(values.company as string | undefined, '--company'),
        ...(typeof values.role === 'string' ? { role: values.role as UserRecord['role'] } : {}),
        ...(typeof values.phone === 'string' ? { phone_number: values.phone } : {}),
      })
      context.print(user, () => `User created.\n${userLine(user)}`)
    },
  },
  {
    name: 'user list',
    summary: 'List users, optionally of one company',
    usage: 'user list [--company <id>]',
    options: { company: { type: 'string' } },
    async run(context, values) {
      const companyId = values.company === undefined ? undefined : requireId(values.company as string, '--company')
      const users = await new UserService(context.db.prisma).list(companyId === undefined ? {} : { company_id: companyId })
      context.print(users, () => (users.length === 0 ? 'No users found' : users.map(userLine).join('\n')))
    },
  },
  {
    name: 'user set-role',
    summary: 'Change a user\'s role',
    usage: `user set-role <id|email> <${ROLES.join('|')}>`,
    async run(context, _values, [who, role]) {
      if (!who || !role) throw new UsageError('user set-role needs a user and a role')
      const user = await new UserService(context.db.prisma).setRole(who, role)
      context.print(user, () => `Role changed.\n${userLine(user)}`)
    },
  },
  {
    name: 'user deactivate',
    summary: 'Stop a user from signing in; their tokens and API keys stop working',
    usage: 'user deactivate <id|email>',
    async run(context, _values, [who]) {
      if (!who) throw new UsageError('user deactivate needs a user id or e-mail')
      const user = await new UserService(context.db.prisma).deactivate(who)
      context.print(user, () => `User deactivated.\n${userLine(user)}`)
    },
  },
  {
    name: 'seed demo',
    summary: 'Create the demo company with every product group and one user per role',
    usage: 'seed demo [--password <password>]   (default: DEMO_PASSWORD or the README\'s demo password)',
    options: { password: { type: 'string' } },
    async run(context, values) {
      const password = (values.password as string | undefined) ?? context.env.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD
      const demo = await ensureDemoAccounts(context.db.prisma, password)
      context.print(demo, () => `Demo company ${demo.companyId} (activation key ${demo.activationKey}):\n${demo.users.map((u) => `  ${u.role.padEnd(7)} ${u.email}`).join('\n')}`)
    },
  },
  ...extraCommands,
  ...dataCommands,
]

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return [
    'Citrus operators\' CLI',
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
    if (!db) {
      const url = env.DATABASE_URL ?? runningEmbeddedUrl(env)
      if (url) {
        // A fresh PostgreSQL database works straight away: the CLI applies pending migrations like the server.
        if (env.DATABASE_URL) await applyMigrations(env.DATABASE_URL, MIGRATIONS_DIR)
        db = createDatabase(url, { maxConnections: 2 })
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
