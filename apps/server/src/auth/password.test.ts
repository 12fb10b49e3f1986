import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from './password.js'

describe('password hashing', () => {
  it('verifies the right password and rejects a wrong one', async () => {
    const hash = await hashPassword('Correct#Horse9')
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/)
    expect(hash).not.toContain('Correct#Horse9')
    await expect(verifyPassword('Correct#Horse9', hash)).resolves.toBe(true)
    await expect(verifyPassword('Correct#Horse8', hash)).resolves.toBe(false)
  })

  it('salts every hash', async () => {
    expect(await hashPassword('Same#Pass1')).not.toBe(await hashPassword('Same#Pass1'))
  })

  it('rejects malformed stored hashes instead of throwing', async () => {
    await expect(verifyPassword('x', 'not-a-hash')).resolves.toBe(false)
  })
})
