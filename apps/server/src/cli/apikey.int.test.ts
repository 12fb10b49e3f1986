import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createTenant, useTestApp } from '../../../../test/helpers.ts'
import type { Database } from '../db/database.js'
import { runCli } from './main.js'

async function cli(db: Database, ...argv: string[]) {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) }, db)
  return { code, out, err }
}

describe('operators CLI: API keys', () => {
  const ctx = useTestApp()

  it('creates a key for a user (by e-mail), prints it once, lists it masked and revokes it', async () => {
    const { users, company } = await createTenant(ctx.db, { roles: ['admin'] })
    const created = await cli(ctx.db, 'apikey', 'create', '--user', users[0]!.email.toUpperCase(), '--name', 'Nightly export')
    expect(created.code, created.err).toBe(0)
    const token = /sk-[A-Za-z0-9_-]{48}/.exec(created.out)?.[0]
    expect(token).toBeDefined()
    expect(created.out).toContain('shown once')

    // it works as the user
    const info = await request(ctx.app.server)
      .get('/api/users/info')
      .set({ authorization: `Bearer ${token!}` })
    expect(info.status).toBe(200)
    expect(info.body.email).toBe(users[0]!.email)

    const listed = await cli(ctx.db, 'apikey', 'list', '--company', String(company.id), '--json')
    expect(listed.code).toBe(0)
    const keys = JSON.parse(listed.out) as { id: string; name: string; masked_token: string; user_email: string }[]
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ name: 'Nightly export', masked_token: token!.slice(3, 7), user_email: users[0]!.email })
    expect(listed.out).not.toContain(token!)
    const human = await cli(ctx.db, 'apikey', 'list', '--user', String(users[0]!.id))
    expect(human.out).toContain(`sk-${token!.slice(3, 7)}...`)
    expect(human.out).not.toContain(token!)

    const revoked = await cli(ctx.db, 'apikey', 'revoke', keys[0]!.id)
    expect(revoked.code).toBe(0)
    expect(revoked.out).toContain('API key revoked.')
    expect(
      (
        await request(ctx.app.server)
          .get('/api/users/info')
          .set({ authorization: `Bearer ${token!}` })
      ).status,
    ).toBe(401)
    expect((await cli(ctx.db, 'apikey', 'list', '--company', String(company.id))).out).toContain('No API keys found')

    const entries = await ctx.db.prisma.auditLog.findMany({ where: { target_id: keys[0]!.id }, orderBy: { id: 'asc' } })
    expect(entries.map((e) => [e.action, e.source, e.actor_user_id])).toEqual([
      ['api_key.create', 'cli', null],
      ['api_key.revoke', 'cli', null],
    ])
  })

  it('prints JSON with the token on create', async () => {
    const { users } = await createTenant(ctx.db, { roles: ['user'] })
    const created = await cli(ctx.db, 'apikey', 'create', '--user', String(users[0]!.id), '--json')
    expect(created.code).toBe(0)
    const body = JSON.parse(created.out) as { token: string; name: string | null; user_id: number }
    expect(body.token).toMatch(/^sk-[A-Za-z0-9_-]{48}$/)
    expect(body).toMatchObject({ name: null, user_id: users[0]!.id })
  })

  it('revokes the keys of a deactivated user', async () => {
    const { users } = await createTenant(ctx.db, { roles: ['admin'] })
    const created = JSON.parse((await cli(ctx.db, 'apikey', 'create', '--user', String(users[0]!.id), '--json')).out) as {
      id: string
      token: string
    }
    const deactivated = await cli(ctx.db, 'user', 'deactivate', users[0]!.email)
    expect(deactivated.code).toBe(0)
    expect((await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: created.id } })).revoked_at).not.toBeNull()
    expect(
      (
        await request(ctx.app.server)
          .get('/api/users/info')
          .set({ authorization: `Bearer ${created.token}` })
      ).status,
    ).toBe(401)
  })

  it('records role changes from the CLI in the audit log', async () => {
    const { users, company } = await createTenant(ctx.db, { roles: ['user'] })
    expect((await cli(ctx.db, 'user', 'set-role', users[0]!.email, 'admin')).code).toBe(0)
    const entry = await ctx.db.prisma.auditLog.findFirstOrThrow({ where: { action: 'user.role_change', target_id: String(users[0]!.id) } })
    expect(entry).toMatchObject({
      source: 'cli',
      actor_user_id: null,
      actor_email: null,
      company_id: company.id,
      details: { email: users[0]!.email, from: 'user', to: 'admin' },
    })
  })

  it('answers bad input with exit code 2 and help with 0', async () => {
    expect((await cli(ctx.db, 'apikey', 'create')).code).toBe(2)
    expect((await cli(ctx.db, 'apikey', 'create')).err).toContain('--user is required')
    expect((await cli(ctx.db, 'apikey', 'create', '--user', 'nobody@nowhere.test')).code).toBe(2)
    expect((await cli(ctx.db, 'apikey', 'revoke')).code).toBe(2)
    const unknown = await cli(ctx.db, 'apikey', 'revoke', '00000000-0000-4000-8000-000000000000', '--json')
    expect(unknown.code).toBe(2)
    expect(JSON.parse(unknown.err)).toEqual({ error: 'API token not found', exit_code: 2 })
    expect((await cli(ctx.db, 'apikey', 'list', '--company', 'abc')).code).toBe(2)
    expect((await cli(ctx.db, 'apikey', 'list', '--bogus')).code).toBe(2)
    const help = await cli(ctx.db, 'apikey', 'create', '--help')
    expect(help.code).toBe(0)
    expect(help.out).toContain('apikey create --user <id|email> [--name <name>]')
    const overall = await cli(ctx.db, '--help')
    expect(overall.out).toContain('apikey revoke')
  })

  it('refuses more than the maximum number of keys per user', async () => {
    const { users } = await createTenant(ctx.db, { roles: ['admin'] })
    for (let i = 0; i < 10; i++) expect((await cli(ctx.db, 'apikey', 'create', '--user', String(users[0]!.id))).code).toBe(0)
    const over = await cli(ctx.db, 'apikey', 'create', '--user', String(users[0]!.id))
    expect(over.code).toBe(2)
    expect(over.err).toContain('User has reached max number of tokens.')
  })
})
