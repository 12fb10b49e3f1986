import { FHIR_EXTENSIONS } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import {
  facilityLocationJson,
  practiceLocationJson,
  practitionerJson,
  practitionerRoleJson,
  type FacilityRow,
  type ProviderRow,
} from './resources.js'
import { renderOf, type DirectoryVersion } from './search.js'

const version: DirectoryVersion = {
  version: '3:9:x',
  loadedAt: new Date('2026-11-01T00:00:00Z'),
  meta: { versionId: '3.9', loadedAt: '2026-11-01T00:00:00.000Z' },
}
const render = renderOf(version, {
  loadedAt: version.loadedAt,
  insurers: [
    { id: 2, name: 'Aetna' },
    { id: 7, name: 'Zeta "Health" \\ Plan' },
    { id: 11, name: 'Blue Cross' },
  ],
})

const provider: ProviderRow = {
  id: 42,
  npi: '1234567893',
  first_name: 'Zoë',
  middle_name: null,
  last_name: 'O"Brien \\ Jr',
  full_name: 'Zoë O"Brien \\ Jr, MD\n',
  title: 'MD',
  provider_kind: 'physician',
  primary_taxonomy_code: '207Q00000X',
  specialty_display: 'Family Medicine',
  gender: 'F',
  phone_number: null,
  address: '1 "Main" St',
  city: 'Baltimore',
  state: 'MD',
  zip_code: '21051',
  latitude: 39.29,
  longitude: -76.61,
  facility_id: null,
  accepting_new_patients: false,
  networks: '{"Aetna": true, "Unknown Plan": true, "Blue Cross": false, "Zeta \\"Health\\" \\\\ Plan": true}',
  last_verified_at: '2025-11-22',
  confidence: 0.9,
  updated_at: new Date('2026-10-05T12:34:56.789Z'),
}

describe('resources written as JSON text', () => {
  it('escape every value from the row and parse back to the row', () => {
    const practitioner = JSON.parse(practitionerJson(provider, render))
    expect(practitioner.name[0]).toEqual({
      use: 'official',
      text: provider.full_name,
      family: provider.last_name,
      given: ['Zoë'],
      suffix: ['MD'],
    })
    expect(practitioner.gender).toBe('female')
    expect(practitioner.telecom).toBeUndefined()
    expect(practitioner.meta).toEqual({
      versionId: '3.9',
      lastUpdated: '2026-10-05T12:34:56.789Z',
      profile: ['http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/plannet-Practitioner'],
    })
    const location = JSON.parse(practiceLocationJson(provider, render))
    expect(location.name).toBe(`Practice of ${provider.full_name}`)
    expect(location.address.line).toEqual(['1 "Main" St'])
    expect(location.position).toEqual({ longitude: -76.61, latitude: 39.29 })
    expect(location.managingOrganization).toBeUndefined()
  })

  it('PractitionerRole: the networks named true that are insurers, in id order, and the flags and figures', () => {
    const role = JSON.parse(practitionerRoleJson(provider, render))
    const networks = role.extension.filter((e: { url: string }) => e.url === FHIR_EXTENSIONS.networkReference)
    expect(networks.map((e: { valueReference: { reference: string } }) => e.valueReference.reference)).toEqual([
      'Organization/net-2',
      'Organization/net-7',
    ])
    expect(role.extension[0].extension[0].valueCodeableConcept.coding[0].code).toBe('nopt')
    expect(role.extension.find((e: { url: string }) => e.url === FHIR_EXTENSIONS.confidence).valueDecimal).toBe(0.9)
    expect(role.specialty).toEqual([
      {
        coding: [{ system: 'http://nucc.org/provider-taxonomy', code: '207Q00000X', display: 'Family Medicine' }],
        text: 'Family Medicine',
      },
    ])
    expect(role.code[0].coding[0].code).toBe('ph')
    expect(role.organization).toBeUndefined()
    // no networks: no network-reference extension, and the cached set of another clinician is not reused
    const alone = JSON.parse(practitionerRoleJson({ ...provider, networks: '{}' }, render))
    expect(alone.extension.some((e: { url: string }) => e.url === FHIR_EXTENSIONS.networkReference)).toBe(false)
  })

  it('facility Location: its type, address and managing organization', () => {
    const facility: FacilityRow = {
      id: 5,
      npi: null,
      name: 'St. "Agnes" Hospital',
      facility_type: 'hospital',
      taxonomy_code: null,
      health_system_id: null,
      address_line_1: '',
      city: 'Baltimore',
      state: 'MD',
      zip_code: '21229',
      latitude: 39.28,
      longitude: -76.67,
      phone_number: '4105550100',
      updated_at: new Date('2026-01-02T03:04:05.006Z'),
    }
    const location = JSON.parse(facilityLocationJson(facility, render))
    expect(location.type[0].coding[0].code).toBe('HOSP')
    expect(location.address).toEqual({ use: 'work', type: 'physical', city: 'Baltimore', state: 'MD', postalCode: '21229', country: 'US' })
    expect(location.telecom).toEqual([{ system: 'phone', value: '4105550100', use: 'work' }])
    expect(location.managingOrganization).toEqual({ reference: 'Organization/fac-5', display: facility.name })
  })
})
