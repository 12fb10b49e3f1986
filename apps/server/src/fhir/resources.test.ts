import { FHIR_EXTENSIONS } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import {
  facilityLocationJson,
  practiceLocationJson,
  parsePractitionerRoleId,
  practitionerJson,
  practitionerRoleId,
  practitionerRolesJson,
  type FacilityRow,
  type ProviderRow,
} from './resources.js'
import { KINDS, kindOf, type FilterContext } from './kinds.js'
import { renderOf, type DirectoryVersion } from './search.js'

const version: DirectoryVersion = {
  version: '3:9:x',
  loadedAt: new Date('2026-11-01T00:00:00Z'),
  meta: { versionId: '3.9', loadedAt: '2026-11-01T00:00:00.000Z' },
}
const context: FilterContext = {
  loadedAt: version.loadedAt,
  insurers: [
    { id: 2, name: 'Aetna' },
    { id: 7, name: 'Zeta "Health" \\ Plan' },
    { id: 11, name: 'Blue Cross' },
  ],
}
const render = renderOf(version, context)

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
    const location = JSON.parse(practiceLocationJson({ ...provider, part_of: null }, render))
    expect(location.name).toBe(`Practice of ${provider.full_name}`)
    expect(location.address.line).toEqual(['1 "Main" St'])
    expect(location.position).toEqual({ longitude: -76.61, latitude: 39.29 })
    expect(location.managingOrganization).toBeUndefined()
    expect(location.partOf).toBeUndefined()
    // at its facility's address: part of the facility's location
    const atFacility = JSON.parse(practiceLocationJson({ ...provider, facility_id: 7, part_of: 7 }, render))
    expect(atFacility.partOf).toEqual({ reference: 'Location/fac-7' })
  })

  it('PractitionerRole: one role per network named true that is an insurer, in id order, each with that network alone', () => {
    const networks = render.networksOf(provider.networks!)
    expect(networks).toEqual([2, 7])
    const roles = practitionerRolesJson(provider, render, networks).map((text) => JSON.parse(text))
    expect(roles.map((role) => role.id)).toEqual(['42-n2', '42-n7'])
    roles.forEach((role, n) => {
      const reference = `Organization/net-${networks[n]}`
      // plannet-PractitionerRole: network-reference 0..1; newpatients states acceptance from that network
      const references = role.extension.filter((e: { url: string }) => e.url === FHIR_EXTENSIONS.networkReference)
      expect(references).toEqual([{ url: FHIR_EXTENSIONS.networkReference, valueReference: { reference } }])
      const newPatients = role.extension.filter((e: { url: string }) => e.url === FHIR_EXTENSIONS.newPatients)
      expect(newPatients).toEqual([
        {
          url: FHIR_EXTENSIONS.newPatients,
          extension: [
            {
              url: 'acceptingPatients',
              valueCodeableConcept: {
                coding: [
                  {
                    system: 'http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/AcceptingPatientsCS',
                    code: 'nopt',
                    display: 'Not Accepting',
                  },
                ],
              },
            },
            { url: 'fromNetwork', valueReference: { reference } },
          ],
        },
      ])
      expect(role.extension.find((e: { url: string }) => e.url === FHIR_EXTENSIONS.confidence).valueDecimal).toBe(0.9)
      expect(role.practitioner).toEqual({ reference: 'Practitioner/42', display: provider.full_name })
      expect(role.specialty).toEqual([
        {
          coding: [{ system: 'http://nucc.org/provider-taxonomy', code: '207Q00000X', display: 'Family Medicine' }],
          text: 'Family Medicine',
        },
      ])
      expect(role.code[0].coding[0].code).toBe('ph')
      expect(role.organization).toBeUndefined()
    })
    // accepting: the flag in each network's role
    const accepting = practitionerRolesJson({ ...provider, accepting_new_patients: true }, render, [7]).map((text) => JSON.parse(text))
    expect(accepting[0].extension[0].extension.map((e: { url: string }) => e.url)).toEqual(['acceptingPatients', 'fromNetwork'])
    expect(accepting[0].extension[0].extension[0].valueCodeableConcept.coding[0].code).toBe('newpt')
    // no networks: one role, its id the clinician's, without network-reference or fromNetwork; the cached set of
    // another clinician is not reused
    expect(render.networksOf('{}')).toEqual([])
    expect(render.networksOf('{"Aetna": false, "Unknown Plan": true}')).toEqual([])
    const alone = JSON.parse(practitionerRolesJson({ ...provider, networks: '{}' }, render, [null])[0]!)
    expect(alone.id).toBe('42')
    expect(alone.extension.some((e: { url: string }) => e.url === FHIR_EXTENSIONS.networkReference)).toBe(false)
    expect(alone.extension[0].extension.map((e: { url: string }) => e.url)).toEqual(['acceptingPatients'])
  })

  it('PractitionerRole ids: {provider}-n{insurer}, or {provider} for a clinician in no network; anything else names none', () => {
    expect(practitionerRoleId(42, 7)).toBe('42-n7')
    expect(practitionerRoleId(42, null)).toBe('42')
    expect(parsePractitionerRoleId('42-n7')).toEqual({ providerId: 42, network: 7 })
    expect(parsePractitionerRoleId('42')).toEqual({ providerId: 42, network: null })
    for (const id of ['42-n', '42-7', '42-n07', '042', 'n7', '42-n7-n8', '0', '42-n0', 'prov-42', '9999999999', '42-n9999999999'])
      expect(parsePractitionerRoleId(id), id).toBeNull()
  })

  it('PractitionerRole kind: a role per network (sub-position: the insurer id), one role {provider} for a clinician in none', () => {
    const several = KINDS.PractitionerRole[0]!.several!
    expect(several.subs(provider as never, render, null)).toEqual([2, 7])
    const alone = { ...provider, networks: '{"Aetna": false}' }
    expect(several.subs(alone as never, render, null)).toEqual([0])
    const [text] = several.toJson(alone as never, render, [0])
    const role = JSON.parse(text!)
    expect(role.id).toBe('42')
    expect(role.extension.some((e: { url: string }) => e.url === FHIR_EXTENSIONS.networkReference)).toBe(false)
    expect([several.idOf(42, 0), several.idOf(42, 7)]).toEqual(['42', '42-n7'])
    // reads: the id names the clinician and the network
    expect(kindOf('PractitionerRole', '42-n7')).toMatchObject({ id: 42, sub: 7 })
    expect(kindOf('PractitionerRole', '42')).toMatchObject({ id: 42, sub: 0 })
    expect(kindOf('PractitionerRole', '42-x7')).toBeNull()
    expect(kindOf('Practitioner', '42')).toMatchObject({ id: 42 })
    expect(kindOf('Practitioner', '42-n7')).toBeNull()
    // network keeps the roles of the networks named (a chain network.name=… is resolved to them first); _id the roles
    // named; both must hold
    const byNetwork = several.filter([{ kind: 'reference', name: 'network', values: [{ type: 'Organization', id: 'net-2' }] }], context)!
    expect(several.subs(provider as never, render, byNetwork)).toEqual([2])
    const byId = several.filter([{ kind: 'token', name: '_id', text: false, values: [{ system: null, code: '42-n7' }] }], context)!
    expect(several.subs(provider as never, render, byId)).toEqual([7])
    const both = several.filter(
      [
        { kind: 'reference', name: 'network', values: [{ type: 'Organization', id: 'net-2' }] },
        { kind: 'token', name: '_id', text: false, values: [{ system: null, code: '42-n7' }] },
      ],
      context,
    )!
    expect(several.subs(provider as never, render, both)).toEqual([])
    expect(several.filter([{ kind: 'token', name: 'specialty', text: false, values: [] }], context)).toBeNull()
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
