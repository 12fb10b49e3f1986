import { describe, expect, it } from 'vitest'
import { ConfigError, parseEnv } from '../config.ts'
import { lsnValue } from './replicas.ts'

describe('DATABASE_REPLICA_URL', () => {
  const primary = 'postgres://citrus@db:5432/citrus'

  it('takes one or more PostgreSQL URLs separated by commas; empty means none', () => {
    expect(parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: 'postgres://citrus@replica:5432/citrus' }).DATABASE_REPLICA_URL).toEqual(
      ['postgres://citrus@replica:5432/citrus'],
    )
    expect(
      parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: ' postgres://a:5432/citrus , postgresql://b:5433/citrus,' })
        .DATABASE_REPLICA_URL,
    ).toEqual(['postgres://a:5432/citrus', 'postgresql://b:5433/citrus'])
    expect(parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: '' }).DATABASE_REPLICA_URL).toBeUndefined()
    expect(parseEnv({}).DATABASE_REPLICA_URL).toBeUndefined()
  })

  it('refuses what is not a PostgreSQL URL, naming the variable', () => {
    expect(() => parseEnv({ DATABASE_URL: primary, DATABASE_REPLICA_URL: 'postgres://a/citrus,mysql://b/citrus' })).toThrow(
      /DATABASE_REPLICA_URL: must be PostgreSQL URLs separated by commas/,
    )
  })

  it('needs DATABASE_URL: the embedded database has no replicas', () => {
    let error: unknown
    try {
      parseEnv({ DATABASE_REPLICA_URL: 'postgres://replica/citrus' })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).issues).toEqual([
      { variable: 'DATABASE_REPLICA_URL', message: 'needs DATABASE_URL (the embedded database has no replicas)' },
    ])
  })
})

describe('lsnValue', () => {
  it('orders WAL positions as PostgreSQL prints them', () => {
    expect(lsnValue('0/0')).toBe(0n)
    expect(lsnValue('0/9000060')).toBe(0x9000060n)
    expect(lsnValue('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n)
    expect(lsnValue('1/0') > lsnValue('0/FFFFFFFF')).toBe(true)
    expect(lsnValue(null)).toBe(0n)
  })
})
