import { API_TOKEN_MESSAGES, AUTH_MESSAGES } from '@citrus/contracts'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../test/helpers.ts'
import { ApiTokenService } from '../domain/api-tokens.ts'
import { CLI_ACTOR } from '../domain/audit.ts'
import { UserService } from '../domain/users.ts'
import { LAST_USED_RESOLUTION_MS, generateApiKey, hashApiKey, maskOf } from './api-keys.ts'

describe('API keys as credentials', () => {
  const ctx = useTestApp()

  async function adminWithKey() {
    const tenant = await createTenant(ctx.db, { roles: ['admin', 'user'], products: [{ product_group: 'ATLAS' }] })
    const login = { authorization: `Bearer ${await loginTokenFor(tenant.users[0]!, tenant.company.company_name)}` }
    const created = await request(ctx.app.server).post('/api/admin/api-token').set(login).send({ name: 'integration' })
    expect(created.status).toBe(200)
    return {
      ...tenant,
      login,
      key: created.body.token as string,
      keyId: created.body.id as string,
      bearer: { authorization: `Bearer ${created.body.token as string}` },
    }
  }
  const info = (headers: Record<string, string>) => request(ctx.app.server).get('/api/users/info').set(headers)

  it('generates keys of the documented shape and never stores them', () => {
    const key = generateApiKey()
    expect(key).toMatch(/^sk-[A-Za-z0-9_-]{48}$/)
    expect(generateApiKey()).not.toBe(key)
    expect(maskOf(key)).toBe(key.slice(3, 7))
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('calls an endpoint as its owner and records last_used_at', async () => {
    const t = await adminWithKey()
    const response = await info(t.bearer)
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      id: t.users[0]!.id,
      email: t.users[0]!.email,
      role: 'admin',
      company_id: t.company.id,
      product_groups: ['ATLAS'],
    })
    const used = await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: t.keyId } })
    expect(used.last_used_at).not.toBeNull()
    // the owner's admin endpoints work with the key too
    const seats = await request(ctx.app.server).get('/api/admin/active-seats').set(t.bearer)
    expect(seats.status).toBe(200)
    const list = await request(ctx.app.server).get('/api/admin/api-token').set(t.login)
    expect((list.body as { id: string; last_used_at: string | null }[]).find((k) => k.id === t.keyId)?.last_used_at).toBe(
      used.last_used_at!.toISOString(),
    )
  })

  it('writes last_used_at at most once a minute', async () => {
    const t = await adminWithKey()
    await info(t.bearer).expect(200)
    const first = (await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: t.keyId } })).last_used_at!
    await info(t.bearer).expect(200)
    expect((await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: t.keyId } })).last_used_at).toEqual(first)
    const stale = new Date(Date.now() - LAST_USED_RESOLUTION_MS - 1000)
    await ctx.db.prisma.apiToken.update({ where: { id: t.keyId }, data: { last_used_at: stale } })
    await info(t.bearer).expect(200)
    expect((await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: t.keyId } })).last_used_at!.getTime()).toBeGreaterThan(
      stale.getTime(),
    )
  })

  it("applies the owner's role: a user's key is refused on admin endpoints", async () => {
    const t = await adminWithKey()
    const userKey = await new ApiTokenService(ctx.db.prisma, CLI_ACTOR).create({ user_id: t.users[1]!.id, name: 'user key' })
    const bearer = { authorization: `Bearer ${userKey.token}` }
    expect((await info(bearer)).body.role).toBe('user')
    const admin = await request(ctx.app.server).get('/api/admin/active-seats').set(bearer)
    expect(admin.status).toBe(403)
    expect(admin.body.message).toBe(AUTH_MESSAGES.roleDenied('user'))
    // a role change applies at once
    await new UserService(ctx.db.prisma).setRole(t.users[1]!.id, 'admin')
    expect((await request(ctx.app.server).get('/api/admin/active-seats').set(bearer)).status).toBe(200)
  })

  it('stops working at once when revoked', async () => {
    const t = await adminWithKey()
    await info(t.bearer).expect(200)
    await request(ctx.app.server).delete('/api/admin/api-token').set(t.login).send({ id: t.keyId }).expect(200)
    const response = await info(t.bearer)
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ message: API_TOKEN_MESSAGES.revoked, code: 'UNAUTHORIZED', status: 401 })
  })

  it('stops working at once when the owner is deactivated (even before the key is revoked)', async () => {
    const t = await adminWithKey()
    await info(t.bearer).expect(200)
    await ctx.db.prisma.user.update({ where: { id: t.users[0]!.id }, data: { is_active: false } })
    const response = await info(t.bearer)
    expect(response.status).toBe(401)
    expect(response.body.message).toBe(API_TOKEN_MESSAGES.ownerInactive)
  })

  it('is revoked when the owner is deactivated through the user service (CLI)', async () => {
    const t = await adminWithKey()
    await new UserService(ctx.db.prisma).deactivate(t.users[0]!.email)
    const stored = await ctx.db.prisma.apiToken.findUniqueOrThrow({ where: { id: t.keyId } })
    expect(stored.revoked_at).not.toBeNull()
    expect((await info(t.bearer)).status).toBe(401)
    const audit = await ctx.db.prisma.auditLog.findFirstOrThrow({ where: { action: 'user.deactivate', target_id: String(t.users[0]!.id) } })
    expect(audit).toMatchObject({ source: 'cli', actor_user_id: null, company_id: t.company.id })
    expect(audit.details).toMatchObject({ api_keys_revoked: 1 })
  })

  it('stops working when the owner has left the company', async () => {
    const t = await adminWithKey()
    const other = await createTenant(ctx.db, { roles: [] })
    await ctx.db.prisma.user.update({ where: { id: t.users[0]!.id }, data: { company_id: other.company.id } })
    const response = await info(t.bearer)
    expect(response.status).toBe(401)
    expect(response.body.message).toBe(API_TOKEN_MESSAGES.ownerInactive)
  })

  it('refuses unknown and malformed keys', async () => {
    for (const key of [generateApiKey(), 'sk-short', `sk-${'a'.repeat(47)}!`]) {
      const response = await info({ authorization: `Bearer ${key}` })
      expect(response.status, key).toBe(401)
      expect(response.body).toEqual({ message: AUTH_MESSAGES.invalidApiKey, code: 'UNAUTHORIZED', status: 401 })
    }
  })
})
