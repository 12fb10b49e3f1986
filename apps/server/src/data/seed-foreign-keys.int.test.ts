import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../../../../test/helpers.ts'
import { verifyForeignKeys } from './seed.ts'

// A load that skips the per-row foreign-key checks (session_replication_role = replica) checks them in bulk
// before COMMIT (docs/decisions/0059): here rows that broke a key were let in by a NOT VALID constraint.
describe('verifyForeignKeys', () => {
  const ctx = useTestDatabase()

  it('passes when every key has its parent (NULL keys are not checked) and names the first orphan otherwise', async () => {
    const client = await ctx.db.pool.connect()
    try {
      await client.query('BEGIN')
      await client.query('CREATE TEMP TABLE fk_parent (id integer PRIMARY KEY, code text, UNIQUE (id, code)) ON COMMIT DROP')
      await client.query(`INSERT INTO fk_parent VALUES (1, 'a'), (2, 'b')`)
      // rows first, then the constraints NOT VALID: the rows that break them stay
      const child = async (name: string, values: string) => {
        await client.query(`CREATE TEMP TABLE ${name} (parent_id integer, code text) ON COMMIT DROP`)
        await client.query(`INSERT INTO ${name} VALUES ${values}`)
        await client.query(`ALTER TABLE ${name} ADD CONSTRAINT ${name}_parent FOREIGN KEY (parent_id) REFERENCES fk_parent (id) NOT VALID`)
        await client.query(`ALTER TABLE ${name} ADD CONSTRAINT ${name}_pair FOREIGN KEY (parent_id, code) REFERENCES fk_parent (id, code) NOT VALID`)
      }
      await child('fk_ok', `(1, 'a'), (2, 'b'), (NULL, 'z'), (2, NULL)`)
      await child('fk_orphan', `(1, 'a'), (3, NULL)`)
      await child('fk_mismatch', `(2, 'b'), (1, 'b')`)
      await verifyForeignKeys(client, 'fk_ok')
      await expect(verifyForeignKeys(client, 'fk_orphan')).rejects.toThrow('fk_orphan: {"parent_id":3} has no row in fk_parent (foreign key fk_orphan_parent)')
      await expect(verifyForeignKeys(client, 'fk_mismatch')).rejects.toThrow('fk_mismatch: {"parent_id":1,"code":"b"} has no row in fk_parent (foreign key fk_mismatch_pair)')
    } finally {
      await client.query('ROLLBACK').catch(() => undefined)
      client.release()
    }
  })
})
