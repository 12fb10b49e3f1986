import { AUTH_MESSAGES } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../lib/errors.ts'
import { assertAppRole, uploadName } from './uploads.ts'

describe('AI Hub uploads', () => {
  it('keeps the file name without its path, at most 255 characters with its extension', () => {
    expect(uploadName('C:\\Users\\ada\\report.pdf')).toBe('report.pdf')
    expect(uploadName('folder/sub/notes.docx')).toBe('notes.docx')
    expect(uploadName(undefined)).toBe('')
    const long = uploadName(`${'x'.repeat(300)}.xlsx`)
    expect(long).toBe(`${'x'.repeat(200)}.xlsx`)
    expect(uploadName(`${'y'.repeat(251)}.pdf`)).toHaveLength(255)
  })

  it('lets the staff roles use Atlas and only citrus use Nova (403 with the role named)', () => {
    for (const role of ['admin', 'citrus', 'user'] as const) expect(() => assertAppRole(role, 'ATLAS')).not.toThrow()
    expect(() => assertAppRole('citrus', 'NOVA')).not.toThrow()
    for (const role of ['admin', 'user', 'member'] as const) {
      let refused: unknown
      try {
        assertAppRole(role, 'NOVA')
      } catch (error) {
        refused = error
      }
      expect(refused).toBeInstanceOf(AppError)
      expect((refused as AppError).status).toBe(403)
      expect((refused as AppError).message).toBe(AUTH_MESSAGES.roleDenied(role))
    }
  })
})
