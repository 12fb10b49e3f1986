import { spawnSync } from 'node:child_process'
import path from 'node:path'
import request from 'supertest'
import { describe, expect, inject, it } from 'vitest'
import { createTestApp, uniqueEmail, useTestDatabase } from '../../../../test/helpers.ts'
import type { Database } from '../db/database.js'
import { REPO_ROOT } from '../runtime.js'
import { runCli } from './main.js'

async function cli(db: Database, ...argv: string[]) {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) }, db)
  return { code, out, err }
}

describe('operators CLI', () => {
  const ctx = useTestDatabase()

  it('creates a company with policies and prints its activation key', async () => {
    const result = await cli(
      ctx.db,
      'company',
      'create',
      '--name',
      'Acme Health',
      '--industry',
      'Payer',
      '--policy',
      'ATLAS',
      '--policy',
      'NOVA:250',
      '--json',
    )
    expect(result.code).toBe(0)
    const company = JSON.parse(result.out)
    expect(company.activation_key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(company.policies).toEqual([
      { product_group: 'ATLAS', limit: null },
      { product_group: 'NOVA', limit: 250 },
    ])
    const human = await cli(ctx.db, 'company', 'show', String(company.id))
    expect(human.code).toBe(0)
    expect(human.out).toContain(company.activation_key)
    expect(human.out).toContain('NOVA:250')
  })

  it('updates, resets the key and lists', async () => {
    const created = JSON.parse((await cli(ctx.db, 'company', 'create', '--name', 'Beta', '--industry', 'Pharma', '--json')).out)
    const updated = JSON.parse(
      (await cli(ctx.db, 'company', 'update', String(created.id), '--renewal-days', '90', '--policy', 'CARE_SELECT:10', '--json')).out,
    )
    expect(updated.renewal_cycle_days).toBe(90)
    expect(updated.policies).toEqual([{ product_group: 'CARE_SELECT', limit: 10 }])
    const reset = JSON.parse((await cli(ctx.db, 'company', 'reset-key', String(created.id), '--json')).out)
    expect(reset.activation_key).not.toBe(created.activation_key)
    const list = JSON.parse((await cli(ctx.db, 'company', 'list', '--json')).out) as { id: number }[]
    expect(list.map((c) => c.id)).toContain(created.id)
  })

  it('manages users: create, set-role, deactivate, list', async () => {
    const company = JSON.parse((await cli(ctx.db, 'company', 'create', '--name', 'Gamma', '--industry', 'Provider', '--json')).out)
    const email = uniqueEmail('ops')
    const created = await cli(
      ctx.db,
      'user',
      'create',
      '--email',
      email,
      '--password',
      'Str0ng#Pass',
      '--company',
      String(company.id),
      '--role',
      'admin',
      '--json',
    )
    expect(created.code).toBe(0)
    expect(JSON.parse(created.out)).toMatchObject({ email, role: 'admin', company_id: company.id, is_active: true })
    expect(created.out).not.toContain('password')
    const role = await cli(ctx.db, 'user', 'set-role', email, 'user', '--json')
    expect(JSON.parse(role.out).role).toBe('user')
    const off = await cli(ctx.db, 'user', 'deactivate', email, '--json')
    expect(JSON.parse(off.out).is_active).toBe(false)
    const list = JSON.parse((await cli(ctx.db, 'user', 'list', '--company', String(company.id), '--json')).out)
    expect(list).toHaveLength(1)
  })

  it('exits 2 with a clear message on bad input', async () => {
    const missing = await cli(ctx.db, 'company', 'create', '--industry', 'X')
    expect(missing.code).toBe(2)
    expect(missing.err).toContain('--name is required')
    const badPolicy = await cli(ctx.db, 'company', 'create', '--name', 'X', '--industry', 'Y', '--policy', 'MAPS')
    expect(badPolicy.code).toBe(2)
    expect(badPolicy.err).toContain('Unknown product group "MAPS"')
    const badLimit = await cli(ctx.db, 'company', 'create', '--name', 'X', '--industry', 'Y', '--policy', 'ATLAS:-3')
    expect(badLimit.code).toBe(2)
    const weak = await cli(ctx.db, 'user', 'create', '--email', uniqueEmail(), '--password', 'weak', '--company', '1')
    expect(weak.code).toBe(2)
    expect(weak.err).toContain("Your password doesn't meet the requirements")
    const unknownCompany = await cli(ctx.db, 'company', 'show', '99999999')
    expect(unknownCompany.code).toBe(2)
    expect(unknownCompany.err).toContain('Company 99999999 not found')
    const unknownOption = await cli(ctx.db, 'company', 'list', '--colour')
    expect(unknownOption.code).toBe(2)
    const unknownCommand = await cli(ctx.db, 'frobnicate')
    expect(unknownCommand.code).toBe(2)
    const json = await cli(ctx.db, 'company', 'show', 'abc', '--json')
    expect(JSON.parse(json.err)).toEqual({ error: expect.stringContaining('company id must be a numeric id'), exit_code: 2 })
  })

  it('documents every command with --help', async () => {
    const help = await cli(ctx.db, '--help')
    expect(help.code).toBe(0)
    for (const name of [
      'company create',
      'company list',
      'company show',
      'company update',
      'company reset-key',
      'user create',
      'user list',
      'user set-role',
      'user deactivate',
      'seed demo',
    ]) {
      expect(help.out).toContain(name)
      const own = await cli(ctx.db, ...name.split(' '), '--help')
      expect(own.code, name).toBe(0)
      expect(own.out).toContain('Usage: npm run cli -- ' + name)
    }
  })

  it('runs as a process through npm run cli against DATABASE_URL', () => {
    const result = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'),
        path.join(REPO_ROOT, 'apps/server/src/cli/main.ts'),
        'company',
        'create',
        '--name',
        'Proc Co',
        '--industry',
        'Payer',
        '--json',
      ],
      {
        env: { PATH: process.env.PATH, DATABASE_URL: inject('databaseUrl') },
        encoding: 'utf8',
        timeout: 60_000,
      },
    )
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout).company_name).toBe('Proc Co')
  })

  it('an operator stands up a company whose users sign up with the printed key and see its products', async () => {
    const company = JSON.parse(
      (
        await cli(
          ctx.db,
          'company',
          'create',
          '--name',
          'Delta',
          '--industry',
          'Payer',
          '--policy',
          'ATLAS',
          '--policy',
          'CARE_SELECT',
          '--json',
        )
      ).out,
    )
    const app = await createTestApp()
    await app.ready()
    try {
      const email = uniqueEmail('signup')
      const signup = await request(app.server)
        .post('/api/users/user-signup')
        .send({ email, password: 'Str0ng#Pass', activation_key: company.activation_key })
      expect(signup.status).toBe(200)
      const login = await request(app.server).post('/api/users/login').send({ email, password: 'Str0ng#Pass' })
      expect(login.status).toBe(200)
      const products = await request(app.server).get('/api/company/products').set('authorization', `Bearer ${login.body.token}`)
      expect(products.status).toBe(200)
      expect([...products.body.product_groups].sort()).toEqual(['ATLAS', 'CARE_SELECT'])
    } finally {
      await app.close()
    }
  })
})
