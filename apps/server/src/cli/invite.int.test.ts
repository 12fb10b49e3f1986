import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { TEST_PASSWORD, createTenant, createTestApp, uniqueEmail, useTestDatabase } from '../../../../test/helpers.ts'
import type { Database } from '../db/database.js'
import { runCli } from './main.js'

async function cli(db: Database, ...argv: string[]) {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) }, db)
  return { code, out, err }
}

describe('CLI user invite (the onboarding service shared with POST /admin/email/onboarding)', () => {
  const ctx = useTestDatabase()

  it('prints a single-use link whose token gives the invited role at sign-up', async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['admin'] })
    const email = uniqueEmail('cli-invite')
    const result = await cli(ctx.db, 'user', 'invite', '--email', email.toUpperCase(), '--company', String(company.id), '--role', 'ADMIN')
    expect(result.err).toBe('')
    expect(result.code).toBe(0)
    expect(result.out).toMatch(/^Invitation \d+ created; it expires \d{4}-\d{2}-\d{2}T/)
    expect(result.out).toContain('Sign-up link (works once, for this e-mail address only; it is not stored and cannot be shown again):')
    const link = new URL(/http:\/\/localhost:\d+\/sign-up\?\S+/.exec(result.out)![0])
    expect(link.searchParams.get('activation_key')).toBe(company.activation_key)
    const invitation_token = link.searchParams.get('invitation')
    const audit = await ctx.db.prisma.auditLog.findFirstOrThrow({ where: { company_id: company.id, action: 'onboarding_email.send' } })
    expect(audit).toMatchObject({ source: 'cli', actor_user_id: null })

    const app = await createTestApp()
    await app.ready()
    try {
      const signup = await request(app.server)
        .post('/api/users/user-signup')
        .send({ email, password: TEST_PASSWORD, activation_key: company.activation_key, invitation_token })
      expect(signup.status).toBe(200)
    } finally {
      await app.close()
    }
    expect((await ctx.db.prisma.user.findUniqueOrThrow({ where: { email } })).role).toBe('admin')

    const member = await cli(ctx.db, 'user', 'invite', '--email', users[0]!.email, '--company', String(company.id))
    expect(member.code).not.toBe(0)
    expect(member.err).toContain('An account with this email already exists')
  })

  it('refuses an unknown company, a bad role and a bad e-mail with their messages', async () => {
    const { company } = await createTenant(ctx.db, { roles: [] })
    const unknown = await cli(ctx.db, 'user', 'invite', '--email', uniqueEmail(), '--company', '2147483000')
    expect(unknown.err).toContain('Company 2147483000 not found')
    const role = await cli(ctx.db, 'user', 'invite', '--email', uniqueEmail(), '--company', String(company.id), '--role', 'owner')
    expect(role.err).toContain('Role must be one of user, admin or citrus.')
    const email = await cli(ctx.db, 'user', 'invite', '--email', 'nope', '--company', String(company.id))
    expect(email.err).toContain('Please enter a valid email address.')
    const missing = await cli(ctx.db, 'user', 'invite', '--company', String(company.id))
    expect(missing.err).toContain('--email is required')
  })
})
