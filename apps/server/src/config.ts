import { z } from 'zod'

const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional()

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1')

/** Every environment variable the server reads, validated once at start (docs/decisions/0004). */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** where the HTTP server listens: this machine only unless set (the Docker image sets 0.0.0.0) */
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** PostgreSQL with PostGIS; unset = the embedded database under DATA_DIR */
  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  /**
   * read replicas of DATABASE_URL, comma-separated: read-only work (engine builds, look-ups) goes to one that has
   * caught up, everything else stays on DATABASE_URL (docs/scaling.md, docs/decisions/0078)
   */
  DATABASE_REPLICA_URL: optionalString.pipe(
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((url) => url.trim())
          .filter((url) => url !== ''),
      )
      .pipe(z.array(z.url({ protocol: /^postgres(ql)?$/, error: 'must be PostgreSQL URLs separated by commas' })))
      .optional(),
  ),
  DATA_DIR: z.string().default('./data'),
  /** port of the embedded database's socket server on 127.0.0.1 (0 = any free port) */
  EMBEDDED_DB_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /**
   * ms a client of the embedded database may sit idle inside a transaction before it is rolled back and
   * disconnected (0 = never): meanwhile every other connection, the server's requests included, waits
   */
  EMBEDDED_DB_IDLE_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** bearer token of GET /metrics (Prometheus text); unset = /metrics answers 404. docs/operations.md "Metrics" */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /**
   * memory the engines of one process may hold together (Atlas indexes, Care Select candidate indexes), least
   * recently used dropped first and built again on use; 0 = no budget. docs/operations.md "Engine memory"
   */
  ENGINE_MEMORY_BUDGET_MB: z.coerce.number().int().min(0).default(640),
  /**
   * NUCC taxonomy codes, comma-separated, whose Care Select candidate indexes the server builds in the background
   * after start and after each data load, in this order (services/care-select/warm.ts); empty = none. Default: family
   * medicine, internal medicine, pediatrics. docs/operations.md "Engine memory"
   */
  CARE_SELECT_WARM_SPECIALTIES: z
    .string()
    .default('207Q00000X,207R00000X,208000000X')
    .transform((value) =>
      value
        .split(',')
        .map((code) => code.trim())
        .filter((code) => code !== ''),
    ),
  /**
   * bytes of compressed large answers (Atlas generic) one process keeps per data version, so that the same answer
   * for another caller is not compressed again; 0 = none. docs/operations.md "Compressed answers"
   */
  COMPRESSED_CACHE_MB: z.coerce.number().int().min(0).default(64),
  /** signs login and shareable-link tokens; generated and kept under DATA_DIR when unset outside production */
  JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  /** public origin used in links inside e-mails, e.g. https://citrus.example.com */
  PUBLIC_URL: optionalString.pipe(z.url().optional()),
  DEMO_PASSWORD: optionalString,
  /** load demo company, users and data at start */
  SEED_DEMO: booleanFlag.optional(),
  /**
   * server processes sharing PORT on PostgreSQL (node:cluster, docs/decisions/0068); the embedded database
   * serves one process, so it always runs one
   */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  WEB_DIST_DIR: optionalString,
  TRUST_PROXY: booleanFlag.default(false),
  /** SMTP for outgoing e-mail; unset = e-mails are kept in the outbox with status held (services/outbox.ts) */
  SMTP_HOST: optionalString,
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  SMTP_USER: optionalString,
  SMTP_PASSWORD: optionalString,
  /** sender address, e.g. "Citrus <no-reply@citrus.example.com>" */
  SMTP_FROM: optionalString,
  /** true = TLS from the first byte (port 465); false = STARTTLS when the server offers it */
  SMTP_SECURE: booleanFlag.optional(),
  /** Twilio for outgoing SMS (member links, verification codes); unset = SMS are kept in the outbox with status held */
  TWILIO_ACCOUNT_SID: optionalString,
  TWILIO_AUTH_TOKEN: optionalString,
  /** sender: an E.164 number, or a Messaging Service SID (MG...) */
  TWILIO_FROM: optionalString,
  /** another base URL for the Messages API (a regional gateway or a local test server); default https://api.twilio.com */
  TWILIO_API_URL: optionalString.pipe(z.url().optional()),
  /** chat webhook that receives feedback (JSON { text }); unset = feedback is only stored */
  FEEDBACK_WEBHOOK_URL: optionalString.pipe(z.url().optional()),
  /** how often the outbox worker looks for due messages; 0 = only when flushed explicitly (tests) */
  OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(0).default(5_000),
  /**
   * keeps the messages of processes with different provider settings apart when they share a
   * database (each test app gets its own); unset in a normal deployment
   */
  OUTBOX_SCOPE: optionalString,
  /** how `data seed` and `data import` write rows: COPY or batched inserts; unset = COPY on PostgreSQL, inserts embedded */
  DATA_LOAD_METHOD: optionalString.pipe(z.enum(['copy', 'insert']).optional()),
  /** a hosted MapLibre style (https) for the maps; unset = the offline basemap of state and county outlines */
  MAP_STYLE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /**
   * AI Hub generation (docs/decisions/0042-ai-hub.md): an OpenAI-compatible chat completions API, e.g.
   * https://api.openai.com/v1 or http://localhost:11434/v1; unset = the built-in offline analyst
   */
  AI_BASE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** sent as `Authorization: Bearer`; local servers may need none */
  AI_API_KEY: optionalString,
  /** the model to ask, e.g. gpt-4o-mini; required with AI_BASE_URL */
  AI_MODEL: optionalString,
  /** how long one generation may take before the provider counts as failed */
  AI_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(120_000),
  /** the FHIR provider directory (/fhir, docs/fhir.md) answers anonymous reads, unmetered; false = sign-in or API key, metered */
  FHIR_PUBLIC: booleanFlag.default(false),
  /** how long counting a FHIR search's `_total=accurate` may take on PostgreSQL before the Bundle goes without a total */
  FHIR_TOTAL_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
  /** how long one statement of a FHIR search may run on PostgreSQL before the search answers 400 (too-costly) */
  FHIR_SEARCH_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
})

export type Env = z.infer<typeof envSchema>

export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  ${issue.variable}: ${issue.message}`).join('\n')}`)
  }
}

export function parseEnv(source: NodeJS.ProcessEnv | Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source)
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '(env)'), message: issue.message })))
  }
  const env = result.data
  if (env.NODE_ENV === 'production' && env.DATABASE_URL && !env.JWT_SECRET) {
    throw new ConfigError([{ variable: 'JWT_SECRET', message: 'is required in production with DATABASE_URL' }])
  }
  if (env.DATABASE_REPLICA_URL?.length && !env.DATABASE_URL) {
    throw new ConfigError([{ variable: 'DATABASE_REPLICA_URL', message: 'needs DATABASE_URL (the embedded database has no replicas)' }])
  }
  if (env.AI_BASE_URL && !env.AI_MODEL) throw new ConfigError([{ variable: 'AI_MODEL', message: 'is required with AI_BASE_URL' }])
  if (!env.AI_BASE_URL && (env.AI_MODEL || env.AI_API_KEY)) {
    throw new ConfigError([{ variable: 'AI_BASE_URL', message: 'is required with AI_MODEL and AI_API_KEY' }])
  }
  return env
}

/**
 * The process environment, validated: the one place that reads process.env (an ESLint rule keeps it so).
 * `overrides` replace variables for this process only (benchmarks silence the log, for instance).
 */
export function loadEnv(overrides: Record<string, string> = {}): Env {
  return parseEnv({ ...process.env, ...overrides })
}

/** What buildApp needs: the environment plus what the process resolved from it. */
export interface AppConfig {
  env: Env
  databaseUrl: string
  databaseMode: 'embedded' | 'postgres'
  jwtSecret: string
  migrationsDir: string
  /** folder holding the built client (index.html); null = API only */
  webDistDir: string | null
}
