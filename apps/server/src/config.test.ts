import { describe, expect, it } from 'vitest'
import { ConfigError, parseEnv } from './config.js'

describe('configuration', () => {
  it('applies defaults for a bare environment (embedded database, port 3000)', () => {
    const env = parseEnv({})
    expect(env.PORT).toBe(3000)
    expect(env.DATABASE_URL).toBeUndefined()
    expect(env.DATA_DIR).toBe('./data')
    expect(env.NODE_ENV).toBe('development')
    // this machine only (the Docker image sets HOST=0.0.0.0); the embedded database bounds idle transactions
    expect(env.HOST).toBe('127.0.0.1')
    expect(env.EMBEDDED_DB_IDLE_TIMEOUT_MS).toBe(5_000)
    // the engines' memory budget fits a full-scale process (docs/operations.md#engine-memory); 0 turns it off
    expect(env.ENGINE_MEMORY_BUDGET_MB).toBe(640)
    expect(parseEnv({ ENGINE_MEMORY_BUDGET_MB: '0' }).ENGINE_MEMORY_BUDGET_MB).toBe(0)
  })

  it('treats an empty DATABASE_URL as unset', () => {
    expect(parseEnv({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined()
  })

  it('names every bad variable', () => {
    try {
      parseEnv({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' })
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      const message = (error as ConfigError).message
      expect(message).toContain('PORT')
      expect(message).toContain('DATABASE_URL')
      expect(message).toContain('LOG_LEVEL')
    }
  })

  it('requires a JWT secret of at least 32 characters when one is given', () => {
    expect(() => parseEnv({ JWT_SECRET: 'short' })).toThrow(/JWT_SECRET: must be at least 32 characters/)
  })

  it('requires JWT_SECRET in production on PostgreSQL', () => {
    expect(() => parseEnv({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/citrus' })).toThrow(/JWT_SECRET/)
  })
})
