import { describe, expect, it } from 'vitest'
import { formatBytes, greetingName, move } from './format'

describe('AI Hub formats', () => {
  it('shows sizes in Bytes, KB, MB and GB', () => {
    expect([0, 512, 1024, 1536, 10 * 1024 * 1024, 3 * 1024 ** 3].map(formatBytes)).toEqual([
      '0 Bytes',
      '512 Bytes',
      '1 KB',
      '1.5 KB',
      '10 MB',
      '3 GB',
    ])
  })

  it('greets by the first name of the e-mail', () => {
    expect([greetingName('dana.smith@x.com'), greetingName('lee@x.com'), greetingName(null)]).toEqual(['Dana', 'Lee', 'there'])
  })

  it('moves an item', () => {
    expect(move(['a', 'b', 'c'], 0, 2)).toEqual(['b', 'c', 'a'])
    expect(move(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b'])
    expect(move(['a', 'b'], 0, 5)).toEqual(['a', 'b'])
  })
})
