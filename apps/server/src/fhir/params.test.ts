import { describe, expect, it } from 'vitest'
import { FhirError } from './outcome.js'
import { METRES_PER_UNIT, UCUM_UNITS, checkFormat, parseDate, parseNear, parseReference, parseSearch, parseToken } from './params.js'

const refusal = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(FhirError)
    return { status: (error as FhirError).status, message: (error as FhirError).message }
  }
  throw new Error('expected a refusal')
}

describe('FHIR search parameters', () => {
  it('dates: the range of the precision given, with the prefix', () => {
    expect(parseDate('_lastUpdated', 'ge2025-03')).toEqual({
      prefix: 'ge',
      from: new Date('2025-03-01T00:00:00Z'),
      to: new Date('2025-04-01T00:00:00Z'),
    })
    expect(parseDate('_lastUpdated', '2024')).toEqual({
      prefix: 'eq',
      from: new Date('2024-01-01T00:00:00Z'),
      to: new Date('2025-01-01T00:00:00Z'),
    })
    expect(parseDate('_lastUpdated', 'lt2025-12-31')).toEqual({
      prefix: 'lt',
      from: new Date('2025-12-31T00:00:00Z'),
      to: new Date('2026-01-01T00:00:00Z'),
    })
    const instant = parseDate('_lastUpdated', 'gt2025-01-02T03:04:05+02:00')
    expect(instant.from.toISOString()).toBe('2025-01-02T01:04:05.000Z')
    expect(instant.to.getTime() - instant.from.getTime()).toBe(1000)
    expect(refusal(() => parseDate('_lastUpdated', '2025-02-30')).status).toBe(400)
    expect(refusal(() => parseDate('_lastUpdated', 'after2025')).message).toMatch(/not a FHIR date/)
  })

  it('tokens and references', () => {
    expect(parseToken('specialty', 'http://nucc.org/provider-taxonomy|207R00000X')).toEqual({
      system: 'http://nucc.org/provider-taxonomy',
      code: '207R00000X',
    })
    expect(parseToken('specialty', '207R00000X')).toEqual({ system: null, code: '207R00000X' })
    expect(parseToken('specialty', '|207R00000X')).toEqual({ system: '', code: '207R00000X' })
    expect(refusal(() => parseToken('specialty', 'http://nucc.org/provider-taxonomy|')).status).toBe(400)
    expect(parseReference('organization', 'Organization/fac-12', null)).toEqual({ type: 'Organization', id: 'fac-12' })
    expect(parseReference('organization', 'https://example.org/fhir/Organization/net-3', null)).toEqual({
      type: 'Organization',
      id: 'net-3',
    })
    expect(parseReference('organization', 'fac-12', 'Organization')).toEqual({ type: 'Organization', id: 'fac-12' })
    expect(refusal(() => parseReference('organization', 'Location/x', 'Organization')).status).toBe(400)
    expect(refusal(() => parseReference('organization', 'bad id!', null)).status).toBe(400)
  })

  it('near: latitude|longitude|distance|unit in metres, with the unit kept for the answer', () => {
    expect(parseNear('near', '40.7|-74|10|mi')).toEqual({ latitude: 40.7, longitude: -74, radius: 16093.44, unit: 'mi' })
    expect(parseNear('near', '40.7|-74|10|[mi_i]')).toMatchObject({ radius: 16093.44, unit: '[mi_i]' })
    // the US survey mile (UCUM [mi_us]) is 1609.347218694 m, not the international mile's 1609.344
    const survey = parseNear('near', '40.7|-74|10|[mi_us]')
    expect(survey.unit).toBe('[mi_us]')
    expect(survey.radius).toBeCloseTo(16093.47218694, 6)
    expect(METRES_PER_UNIT[survey.unit]).toBeCloseTo(1609.347218694, 9)
    expect(UCUM_UNITS['[mi_us]']).toBe('[mi_us]')
    expect(UCUM_UNITS.mi).toBe('[mi_i]')
    expect(parseNear('near', '40.7|-74')).toEqual({ latitude: 40.7, longitude: -74, radius: 50_000, unit: 'km' })
    for (const bad of ['40.7', '95|0|1|km', '40|-190|1|km', '40|-74|-1|km', '40|-74|1|parsec', '40|-74|600|km', 'a|b|1|km']) {
      expect(refusal(() => parseNear('near', bad)).status, bad).toBe(400)
    }
  })

  it('_format: JSON only, anything else 406 (searches, reads and the CapabilityStatement alike)', () => {
    for (const json of ['json', 'application/json', 'application/fhir+json']) expect(() => checkFormat(json)).not.toThrow()
    for (const other of ['xml', 'application/fhir+xml', 'text/turtle', 'JSON '])
      expect(refusal(() => checkFormat(other)).status, other).toBe(406)
    expect(refusal(() => parseSearch('Practitioner', [['_format', 'xml']])).status).toBe(406)
  })

  it('a search: criteria, modifiers, chains, result parameters; strict unless lenient', () => {
    const search = parseSearch('PractitionerRole', [
      ['specialty', '207R00000X,207Q00000X'],
      ['location.address-postalcode', '100'],
      ['network.name:exact', 'Aetna Network'],
      ['location.near', '40.7|-74|5|km'],
      ['_count', '100'],
      ['_total', 'accurate'],
      ['_include', 'PractitionerRole:location'],
    ])
    expect(search.count).toBe(100)
    expect(search.total).toBe('accurate')
    expect(search.include).toEqual(['PractitionerRole:location'])
    expect(search.near).toEqual({ latitude: 40.7, longitude: -74, radius: 5000, unit: 'km' })
    expect(search.criteria).toEqual([
      {
        kind: 'token',
        name: 'specialty',
        text: false,
        values: [
          { system: null, code: '207R00000X' },
          { system: null, code: '207Q00000X' },
        ],
      },
      {
        kind: 'chain',
        name: 'location',
        target: 'Location',
        inner: { kind: 'string', name: 'address-postalcode', match: 'prefix', values: ['100'] },
      },
      {
        kind: 'chain',
        name: 'network',
        target: 'Organization',
        inner: { kind: 'string', name: 'name', match: 'exact', values: ['Aetna Network'] },
      },
      { kind: 'near', name: 'location.near', near: { latitude: 40.7, longitude: -74, radius: 5000, unit: 'km' } },
    ])
    expect(refusal(() => parseSearch('Practitioner', [['gender', 'female']])).message).toMatch(
      /Unknown search parameter "gender" for Practitioner/,
    )
    expect(parseSearch('Practitioner', [['gender', 'female']], true).criteria).toEqual([])
    expect(refusal(() => parseSearch('Location', [['organization.gender', 'x']])).message).toMatch(/organization\.gender is not supported/)
    expect(refusal(() => parseSearch('Location', [['address:sounds', 'x']])).message).toMatch(/Modifier :sounds/)
    expect(refusal(() => parseSearch('Location', [['_include', 'Location:endpoint']])).message).toMatch(/not supported/)
    expect(refusal(() => parseSearch('Location', [['_format', 'xml']])).status).toBe(406)
    expect(parseSearch('Organization', [['name', 'a\\,b,c']]).criteria[0]).toMatchObject({ values: ['a,b', 'c'] })
  })

  it('chains: through references, as far as three; reverse chains by the references that take chains', () => {
    // a chain goes on through a chained reference of its target
    expect(parseSearch('PractitionerRole', [['location.organization.partof.name:exact', 'Mercy']]).criteria).toEqual([
      {
        kind: 'chain',
        name: 'location',
        target: 'Location',
        inner: {
          kind: 'chain',
          name: 'organization',
          target: 'Organization',
          inner: {
            kind: 'chain',
            name: 'partof',
            target: 'Organization',
            inner: { kind: 'string', name: 'name', match: 'exact', values: ['Mercy'] },
          },
        },
      },
    ])
    // a token and a reference at the end of a chain
    expect(parseSearch('OrganizationAffiliation', [['service.service-category', 'urg']]).criteria[0]).toMatchObject({
      kind: 'chain',
      target: 'HealthcareService',
      inner: { kind: 'token', name: 'service-category', values: [{ system: null, code: 'urg' }] },
    })
    expect(parseSearch('Location', [['partof.organization', 'Organization/fac-3']]).criteria[0]).toMatchObject({
      inner: { kind: 'reference', name: 'organization', values: [{ type: 'Organization', id: 'fac-3' }] },
    })
    expect(
      refusal(() => parseSearch('Location', [['_has:OrganizationAffiliation:location:service.organization.partof.name', 'Mercy']])).message,
    ).toMatch(/follows more than 3 references/)
    // near orders a search: only PractitionerRole's location.near, never within a chain
    expect(refusal(() => parseSearch('Location', [['partof.near', '40|-74|1|km']])).message).toMatch(/partof\.near is not supported/)
    // reverse chains: _has:Type:parameter:its parameter, where Type's parameter points here and takes chains
    expect(parseSearch('Practitioner', [['_has:PractitionerRole:practitioner:specialty', '207R00000X']]).criteria).toEqual([
      {
        kind: 'has',
        name: 'practitioner',
        source: 'PractitionerRole',
        inner: { kind: 'token', name: 'specialty', text: false, values: [{ system: null, code: '207R00000X' }] },
      },
    ])
    expect(parseSearch('Organization', [['_has:PractitionerRole:network:location.address-state:exact', 'NY']]).criteria[0]).toMatchObject({
      kind: 'has',
      inner: { kind: 'chain', name: 'location', inner: { name: 'address-state', match: 'exact', values: ['NY'] } },
    })
    for (const [type, key] of [
      ['Practitioner', '_has:PractitionerRole:location:specialty'], // location points at a Location
      ['Practitioner', '_has:PractitionerRole:role:specialty'], // role is no reference
      ['Practitioner', '_has:Endpoint:organization:name'], // no Endpoint here
      ['Practitioner', '_has:PractitionerRole:practitioner'], // no parameter of the source
    ] as const)
      expect(refusal(() => parseSearch(type, [[key, 'x']])).message, key).toMatch(/Reverse chain .* is not supported/)
    expect(refusal(() => parseSearch('Practitioner', [['_has:PractitionerRole:practitioner:colour', 'x']])).message).toMatch(
      /Unknown search parameter "colour" for PractitionerRole/,
    )
    expect(refusal(() => parseSearch('Practitioner', [['_has:PractitionerRole:practitioner:location.near', '40|-74|1|km']])).status).toBe(
      400,
    )
  })
})
