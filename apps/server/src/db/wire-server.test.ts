import { describe, expect, it } from 'vitest'
import { changesSessionSettings } from './wire-server.ts'

describe('changesSessionSettings (the embedded wire server reads a session back only after these)', () => {
  it('counts SET, RESET, DISCARD and a session set_config', () => {
    for (const sql of [
      "SET work_mem = '64MB'",
      'SET SESSION timezone TO UTC',
      'RESET ALL',
      'DISCARD ALL',
      "BEGIN; SET LOCAL work_mem = '1MB'; COMMIT; SET work_mem = '2MB'",
      "SELECT set_config('citrus.wire_test', 'a', false)",
      "SELECT set_config('search_path', $1, false)",
      // a local one beside a session one: the session may still change
      "SELECT set_config('a.b', 'x', true), set_config('a.c', 'y', false)",
    ])
      expect(changesSessionSettings(sql), sql).toBe(true)
  })

  it('leaves out SET LOCAL, a transaction-local set_config and columns that merely start with reset', () => {
    for (const sql of [
      "SET LOCAL work_mem = '1MB'",
      "WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS setting) INSERT INTO t SELECT 1 FROM async_commit",
      "SELECT set_config('citrus.x', 'it''s', TRUE)",
      "SELECT set_config('citrus.x', $1, true)",
      'UPDATE credential_failures SET reset_at = now()',
      'SELECT 1',
    ])
      expect(changesSessionSettings(sql), sql).toBe(false)
  })
})
