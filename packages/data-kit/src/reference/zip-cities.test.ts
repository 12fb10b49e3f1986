import { describe, expect, it } from 'vitest'
import { openFile } from '../io/text-source.ts'
import { parseGazetteerCounties } from '../parsers/census.ts'
import { parseCmsHospitals } from '../parsers/cms-hospitals.ts'
import { collect } from '../parsers/result.ts'
import { sharedFile } from '../testing.ts'
import { cleanPlaceName, loadZipRows } from './geo.ts'

const gazetteer = sharedFile('census-gazetteer/2024_Gaz_counties_national.txt')
const hospitals = sharedFile('cms-hospital-general-info/Hospital_General_Information.csv')

/** Case, accents, punctuation and spacing aside ("LaSalle" = "La Salle", "Doña" = "Dona"); Saint = St, Fort = Ft. */
function fold(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\bsaint\b/g, 'st')
    .replace(/\bfort\b/g, 'ft')
    .replace(/[^a-z]/g, '')
}

/**
 * A county name of the city data (GeoNames) next to the Gazetteer's NAME. Legitimate differences: GeoNames
 * drops the County / Parish / Borough / Municipality suffix, writes Alaska's census areas "X (CA)" and
 * independent cities "X (city)" or "City of X" where the Gazetteer writes "X city" (but plain "Carson City"),
 * and San Francisco "City and County of San Francisco".
 */
function countyKey(name: string): string {
  const n = name
    .replace(/^City and County of (.+)$/, '$1')
    .replace(/^City of (.+)$/, '$1 city')
    .replace(/\s*\(city\)?$/, ' city')
    .replace(/\s*\(CA\)$/, '')
    .replace(/ (County|Parish|Borough|Census Area|Municipality|City and Borough|Municipio)$/, '')
    .replace(/ City city$/, ' City')
  return fold(n)
}

describe('ZIP city names (@mardillu/us-cities-utils, repaired at import)', () => {
  it('puts back the "City" the bundled data replaced with "name", and decodes its one mojibake county', () => {
    expect(cleanPlaceName('Salt Lake name')).toBe('Salt Lake City')
    expect(cleanPlaceName('Kansas name')).toBe('Kansas City')
    expect(cleanPlaceName('Panama name Beach')).toBe('Panama City Beach')
    expect(cleanPlaceName('name Of Industry')).toBe('City Of Industry')
    expect(cleanPlaceName('Carson name (name)')).toBe('Carson City (city)')
    expect(cleanPlaceName('Colonial Heights (name')).toBe('Colonial Heights (city')
    expect(cleanPlaceName('Juneau name and Borough')).toBe('Juneau City and Borough')
    expect(cleanPlaceName('DoÃ±a Ana')).toBe('Doña Ana')
    // other words stay as they are
    expect(cleanPlaceName('Namekagon')).toBe('Namekagon')
    expect(cleanPlaceName('Nameless')).toBe('Nameless')
    expect(cleanPlaceName('Jersey City')).toBe('Jersey City')
  })

  it('gives every ZIP a clean city and county name', () => {
    const zips = loadZipRows()
    const byZip = new Map(zips.map((z) => [z.zip, z]))
    const word = /\bname\b/
    expect(zips.filter((z) => word.test(z.city) || word.test(z.county_name ?? '')).map((z) => `${z.zip} ${z.city}`)).toEqual([])
    expect(zips.filter((z) => /[\u00c2\u00c3]/.test(`${z.city}${z.county_name ?? ''}`)).map((z) => z.zip)).toEqual([])
    expect(zips.filter((z) => z.city.trim() === '' || z.city !== z.city.trim()).map((z) => z.zip)).toEqual([])
    expect(byZip.get('84101')?.city).toBe('Salt Lake City')
    expect(byZip.get('64106')?.city).toBe('Kansas City')
    expect(byZip.get('07302')?.city).toBe('Jersey City')
    expect(byZip.get('21201')).toMatchObject({ city: 'Baltimore', county_name: 'Baltimore (city)' })
  })

  it.skipIf(!gazetteer)('agrees with the Census 2024 Gazetteer on the county of every ZIP', async () => {
    const { rows, rejected } = await collect(parseGazetteerCounties(openFile(gazetteer!)))
    expect(rejected).toEqual([])
    const names = new Map(rows.map((c) => [c.county_fips, c.name]))
    const zips = loadZipRows()
    const unknown = new Set<string>()
    const disagree: string[] = []
    let compared = 0
    for (const z of zips) {
      if (!z.county_fips) continue
      const official = names.get(z.county_fips)
      if (official === undefined) {
        unknown.add(z.state)
        continue
      }
      compared++
      if (countyKey(z.county_name ?? '') !== countyKey(official)) disagree.push(`${z.zip} ${z.county_name} ≠ ${official}`)
    }
    // The county codes are the 2017 boundaries' (us-atlas): Connecticut's counties gave way to planning regions in
    // 2022, and Alaska's Valdez-Cordova split in 2019; the Gazetteer covers the states, DC and Puerto Rico only.
    expect([...unknown].sort()).toEqual(['AK', 'AS', 'CT', 'GU', 'MP', 'VI'])
    expect(compared).toBeGreaterThan(40_000)
    expect(disagree).toEqual([])
    // the city-named county equivalents the "name" substitution had hit
    const city = (zip: string) => zips.find((z) => z.zip === zip)
    expect(names.get('32510')).toBe('Carson City')
    expect(city('89701')).toMatchObject({ city: 'Carson City', county_fips: '32510' })
    expect(names.get('51036')).toBe('Charles City County')
    expect(zips.filter((z) => z.county_fips === '51036').map((z) => z.county_name)).toContain('Charles City')
  })

  it.skipIf(!hospitals)("matches the city of CMS's hospital list for the hospitals' ZIPs", async () => {
    const { rows } = await collect(parseCmsHospitals(openFile(hospitals!)))
    const byZip = new Map(loadZipRows().map((z) => [z.zip, z]))
    let compared = 0
    let same = 0
    const cityWordDiffers: string[] = []
    for (const h of rows) {
      const z = byZip.get(h.zip_code)
      if (!z) continue
      compared++
      if (fold(z.city) === fold(h.city)) same++
      else if (/\bcity\b/i.test(h.city) || /\bcity\b/i.test(z.city)) cityWordDiffers.push(h.zip_code)
    }
    // A hospital's mailing city is sometimes a suburb or neighbourhood of the ZIP's preferred city (Murray in a
    // Salt Lake City ZIP, North Kansas City in a Kansas City one): about 4% of the hospitals; these are the
    // ones with "City" on either side.
    expect(compared).toBeGreaterThan(5_300)
    expect(same / compared).toBeGreaterThan(0.95)
    expect(cityWordDiffers.sort()).toEqual(['18519', '57049', '64116', '73110', '77058', '79928', '84107'])
  })
})
