import type { ParseArgsConfig } from 'node:util'
import type { Env } from '../config.js'
import type { Database } from '../db/database.js'

/** Bad usage or bad input: exit code 2 with the command's usage line. */
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
  /** the command opens the database itself (backup, restore): `context.db` is not set up for it */
  opensDatabase?: boolean
  run(context: CliContext, values: Record<string, string | boolean | string[] | undefined>, positionals: string[]): Promise<void>
}

export function requireString(values: Record<string, unknown>, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`)
  return value
}

export function requireId(value: unknown, what: string): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`${what} must be a numeric id`)
  return Number(value)
}

export function optionalInt(values: Record<string, unknown>, name: string): number | undefined {
  const value = values[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`)
  return Number(value)
}
