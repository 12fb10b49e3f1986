import { GEO_MESSAGES } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'

/** The literal texts of the geo endpoints (the shared map's basemap), pinned. */
describe('geo and map messages', () => {
  it('pins the validation and not-found texts of /geo', () => {
    expect(GEO_MESSAGES.invalidLevel).toBe("level must be 'state' or 'county'")
    expect(GEO_MESSAGES.invalidState).toBe('state must be a 2-letter state abbreviation or a 2-digit state FIPS code')
    expect(GEO_MESSAGES.tileOutOfRange(3, 8, 1)).toBe('Tile 3/8/1 is outside the tile pyramid')
  })
})
