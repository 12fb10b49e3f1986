import type { AddressInfo } from 'node:net'
import {
  FHIR_EXTENSIONS,
  FHIR_MESSAGES,
  FHIR_RESOURCE_TYPES,
  FHIR_REVERSE_CHAINS,
  FHIR_SEARCH_PARAMS,
  FHIR_SYSTEMS,
  PLAN_NET_CAPABILITY,
} from '@citrus/contracts'
import { Fhir } from 'fhir'
import { Client } from 'fhir-kit-client'
import type pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loadTestDatasetFirst, loginTokenFor, useTestApp } from '../../../../test/helpers.ts'
import { exportRowCount } from './export.ts'
import type { Bundle, Entry } from './test-bundle.ts'

/**
 * The FHIR provider directory against a live server on the ci dataset: a real FHIR client (fhir-kit-client) reads,
 * searches, chains, includes and pages to the end; every resource passes the R4 validator of the `fhir` package;
 * ids, counts and `near` distances are recounted with independent SQL (ST_Distance).
 */

const validator = new Fhir()
function expectValid(resource: object) {
  const result = validator.validate(resource)
  // Plan-Net's codes (ProviderRoleCS, OrgTypeCS, NUCC) are outside the base R4 example value sets: that warning alone is expected
  const problems = result.messages.filter(
    (message) =>
      message.severity === 'error' ||
      message.severity === 'fatal' ||
      (message.severity === 'warning' && !/not found in value set/.test(message.message ?? '')),
  )
  expect(problems).toEqual([])
  expect(result.valid).toBe(true)
  const resources =
    (resource as { resourceType?: string }).resourceType === 'Bundle'
      ? ((resource as { entry?: { resource: Record<string, unknown> }[] }).entry ?? []).map((entry) => entry.resource)
      : [resource as Record<string, unknown>]
  for (const item of resources) if ((FHIR_RESOURCE_TYPES as readonly string[]).includes(String(item.resourceType))) expectPlanNet(item)
}

/** The elements Plan-Net's profiles require (1..1 or 1..*) of the resources served, checked on every validated one. */
function expectPlanNet(resource: Record<string, unknown>) {
  const meta = resource.meta as { lastUpdated?: string; profile?: string[]; versionId?: string } | undefined
  const where = `${String(resource.resourceType)}/${String(resource.id)}`
  expect(meta?.lastUpdated, where).toMatch(/^\d{4}-\d{2}-\d{2}T/)
  expect(meta?.profile?.[0], where).toMatch(/^http:\/\/hl7\.org\/fhir\/us\/davinci-pdex-plan-net\/StructureDefinition\/plannet-/)
  switch (resource.resourceType) {
    case 'Practitioner':
      expect(resource.active, where).toBe(true)
      expect((resource.name as unknown[]).length, where).toBeGreaterThan(0)
      expect(
        (resource.identifier as { system: string }[]).some((id) => id.system === FHIR_SYSTEMS.npi),
        where,
      ).toBe(true)
      break
    case 'PractitionerRole': {
      expect(resource.active, where).toBe(true)
      const extensions = resource.extension as {
        url: string
        valueReference?: { reference: string }
        extension?: { url: string; valueReference?: { reference: string } }[]
      }[]
      const newPatients = extensions.filter((extension) => extension.url === FHIR_EXTENSIONS.newPatients)
      expect(newPatients.length, where).toBeGreaterThan(0)
      // network-reference 0..1 (plannet-PractitionerRole: a role is in one network at most), the network of the id
      // ({provider}-n{insurer}; {provider} alone for a clinician in none), and newpatients' fromNetwork the same
      const networks = extensions.filter((extension) => extension.url === FHIR_EXTENSIONS.networkReference)
      expect(networks.length, where).toBeLessThanOrEqual(1)
      const network = networks[0]?.valueReference?.reference
      const id = /^(\d+)(?:-n(\d+))?$/.exec(String(resource.id))
      expect(id, where).not.toBeNull()
      expect(network, where).toBe(id![2] === undefined ? undefined : `Organization/net-${id![2]}`)
      for (const item of newPatients) {
        // acceptingPatients 1..1, fromNetwork 0..1
        expect(item.extension!.filter((sub) => sub.url === 'acceptingPatients').length, where).toBe(1)
        const from = item.extension!.filter((sub) => sub.url === 'fromNetwork')
        expect(from.length, where).toBeLessThanOrEqual(1)
        expect(from[0]?.valueReference?.reference, where).toBe(network)
      }
      expect((resource.practitioner as { reference: string }).reference, where).toBe(`Practitioner/${id![1]}`)
      expect((resource.specialty as { coding: { system: string }[] }[])[0]!.coding[0]!.system, where).toBe(FHIR_SYSTEMS.nucc)
      break
    }
    case 'Organization': {
      expect(resource.active, where).toBe(true)
      expect(typeof resource.name, where).toBe('string')
      const type = (resource.type as { coding: { system: string; code: string }[] }[])[0]!.coding[0]!
      expect(type.system, where).toBe(FHIR_SYSTEMS.orgType)
      // plannet-Network: partOf (the payer) is required
      if (type.code === 'ntwk') expect((resource.partOf as { reference: string }).reference, where).toMatch(/^Organization\/ins-\d+$/)
      // plannet-Organization: address 1..* (the parts held, at least the country)
      else expect((resource.address as { country: string }[])[0]!.country, where).toBe('US')
      break
    }
    case 'Location':
      expect(resource.status, where).toBe('active')
      expect(typeof resource.name, where).toBe('string')
      expect((resource.address as { state?: string }).state, where).toMatch(/^[A-Z]{2}$/)
      expect(resource.position, where).toEqual({ latitude: expect.any(Number), longitude: expect.any(Number) })
      break
    case 'HealthcareService': {
      expect(resource.active, where).toBe(true)
      const category = resource.category as { coding?: { system: string; code: string }[] }[]
      expect(category.length, where).toBeGreaterThan(0)
      // the plan-net-category slice: at most one code of HealthcareServiceCategoryCS
      expect(category.filter((c) => c.coding?.[0]?.system === FHIR_SYSTEMS.serviceCategory).length, where).toBe(1)
      expect((resource.providedBy as { reference: string }).reference, where).toMatch(/^Organization\/fac-\d+$/)
      break
    }
    case 'OrganizationAffiliation':
      expect(resource.active, where).toBe(true)
      // organization-or-participatingOrganization
      expect(resource.organization ?? resource.participatingOrganization, where).toBeDefined()
      expect((resource.code as { coding: { system: string }[] }[])[0]!.coding[0]!.system, where).toBe(FHIR_SYSTEMS.affiliationRole)
      break
    case 'InsurancePlan': {
      expect(resource.status, where).toBe('active')
      const type = resource.type as { coding: { system: string; code: string }[] }[]
      expect(type.length, where).toBe(1)
      expect(type[0]!.coding[0]!.system, where).toBe(FHIR_SYSTEMS.productType)
      expect((resource.ownedBy as { reference: string }).reference, where).toMatch(/^Organization\/ins-\d+$/)
      expect((resource.administeredBy as { reference: string }).reference, where).toMatch(/^Organization\/ins-\d+$/)
      for (const reference of (resource.network as { reference: string }[] | undefined) ?? [])
        expect(reference.reference, where).toMatch(/^Organization\/net-\d+$/)
      // plan-type-is-distinct: plan.type.coding.code.isDistinct()
      const codes = ((resource.plan as { type: { coding: { code: string }[] } }[] | undefined) ?? []).flatMap((plan) =>
        plan.type.coding.map((coding) => coding.code),
      )
      expect(new Set(codes).size, `${where}: plan types ${codes.join()}`).toBe(codes.length)
      break
    }
  }
}

/** A role's network: at most one network-reference, its id's (`{provider}-n{insurer}`), and newpatients' fromNetwork. */
function oneNetwork(role: Record<string, unknown>): boolean {
  const extensions = role.extension as {
    url: string
    valueReference?: { reference: string }
    extension?: { url: string; valueReference?: { reference: string } }[]
  }[]
  const networks = extensions.filter((extension) => extension.url === FHIR_EXTENSIONS.networkReference)
  const id = /^(\d+)(?:-n(\d+))?$/.exec(String(role.id))
  const network = id?.[2] === undefined ? undefined : `Organization/net-${id[2]}`
  const from = extensions
    .filter((extension) => extension.url === FHIR_EXTENSIONS.newPatients)
    .map((extension) => extension.extension?.filter((sub) => sub.url === 'fromNetwork') ?? [])
  return (
    id !== null &&
    networks.length <= 1 &&
    networks[0]?.valueReference?.reference === network &&
    from.length > 0 &&
    from.every((items) => items.length <= 1 && items[0]?.valueReference?.reference === network)
  )
}

const MI = 1609.344

// The ci dataset, loaded before the suites' own hooks: the first load on the embedded database of a busy machine
// takes longer than the default hook timeout.
loadTestDatasetFirst()

describe('FHIR directory, public', { timeout: 180_000 }, () => {
  const ctx = useTestApp({ FHIR_PUBLIC: 'true' }, { dataset: true })
  let base = ''
  let client: Client

  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/fhir`
    client = new Client({ baseUrl: base })
  })

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers })
  const matches = (bundle: Bundle) => (bundle.entry ?? []).filter((entry) => entry.search.mode === 'match')

  /** Follows next links with the FHIR client to the end; the first page (every page with `validateAll`) is validated. */
  async function all(
    resourceType: string,
    searchParams: Record<string, string | number>,
    validateAll = false,
  ): Promise<{ entries: Entry[]; pages: number; total?: number }> {
    let bundle = (await client.search({ resourceType, searchParams })) as unknown as Bundle
    const total = bundle.total
    const entries: Entry[] = []
    let pages = 0
    for (;;) {
      pages++
      if (pages === 1 || validateAll) expectValid(bundle)
      entries.push(...matches(bundle))
      const next = client.nextPage({ bundle: bundle as never })
      if (!next) break
      bundle = (await next) as unknown as Bundle
    }
    return { entries, pages, ...(total !== undefined ? { total } : {}) }
  }

  async function sqlIds(text: string, values: unknown[] = []): Promise<number[]> {
    const { rows } = await ctx.db.pool.query<{ id: number }>(text, values)
    return rows.map((row) => row.id)
  }

  /**
   * The PractitionerRole ids of the clinicians `p` that `where` selects, recounted independently: one per network the
   * networks JSON names true (jsonb_each joined to insurers by name), `{id}-n{insurer id}`, and `{id}` alone for a
   * clinician in none; by clinician, then insurer id. `networks` keeps the roles of those insurers only.
   */
  async function sqlRoles(where = 'TRUE', values: unknown[] = [], networks: number[] | null = null): Promise<string[]> {
    const { rows } = await ctx.db.pool.query<{ id: string }>(
      `WITH r AS (
         SELECT p.id AS p, i.id AS n FROM providers p CROSS JOIN LATERAL jsonb_each(p.aggregated_insurance_networks_v1) e
           JOIN insurers i ON i.name = e.key WHERE e.value = 'true'::jsonb AND (${where})
         UNION ALL
         SELECT p.id, NULL FROM providers p WHERE (${where}) AND NOT EXISTS (SELECT 1 FROM jsonb_each(p.aggregated_insurance_networks_v1) e
           JOIN insurers i ON i.name = e.key WHERE e.value = 'true'::jsonb))
       SELECT CASE WHEN n IS NULL THEN p::text ELSE p || '-n' || n END AS id FROM r
       WHERE $${values.length + 1}::int[] IS NULL OR n = ANY($${values.length + 1}::int[]) ORDER BY p, n NULLS FIRST`,
      [...values, networks],
    )
    return rows.map((row) => row.id)
  }
  const roleIds = (entries: Entry[]) => entries.map((entry) => entry.resource.id)

  it('answers a CapabilityStatement that instantiates Plan-Net and lists exactly what is served', async () => {
    const response = await get('/metadata')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/fhir\+json/)
    const statement = (await response.json()) as {
      instantiates: string[]
      fhirVersion: string
      rest: { resource: { type: string; interaction: { code: string }[]; searchParam: { name: string }[] }[] }[]
    }
    expectValid(statement)
    expect(statement.instantiates).toEqual([PLAN_NET_CAPABILITY])
    expect(statement.fhirVersion).toBe('4.0.1')
    const resources = statement.rest[0]!.resource
    expect(resources.map((resource) => resource.type)).toEqual([...FHIR_RESOURCE_TYPES])
    // Endpoint is not served: the platform holds no endpoints (docs/fhir.md)
    expect(resources.map((resource) => resource.type)).not.toContain('Endpoint')
    expect(resources.map((resource) => resource.type)).toEqual(
      expect.arrayContaining(['HealthcareService', 'OrganizationAffiliation', 'InsurancePlan']),
    )
    for (const resource of resources) {
      expect(resource.interaction.map((interaction) => interaction.code)).toEqual(['read', 'vread', 'search-type'])
      const declared = resource.searchParam.map((param) => param.name).filter((name) => !['_count', '_total', '_cursor'].includes(name))
      const type = resource.type as (typeof FHIR_RESOURCE_TYPES)[number]
      // _has where another type's reference parameter that takes chains points here
      const reverse = FHIR_REVERSE_CHAINS[type].length ? ['_has'] : []
      expect(declared).toEqual([...FHIR_SEARCH_PARAMS[type].map((param) => param.name), ...reverse])
    }
  })

  it('reads a clinician as Practitioner and PractitionerRole with NPI, NUCC specialty, new-patients flag and networks from the tables', async () => {
    const { rows } = await ctx.db.pool.query<{
      id: number
      npi: string
      last_name: string
      primary_taxonomy_code: string
      accepting_new_patients: boolean
      facility_id: number | null
      networks: number[]
    }>(
      `SELECT p.id, p.npi, p.last_name, p.primary_taxonomy_code, p.accepting_new_patients, p.facility_id,
        ARRAY(SELECT i.id FROM insurers i, jsonb_each_text(p.aggregated_insurance_networks_v1) e WHERE e.key = i.name AND e.value = 'true' ORDER BY i.id) AS networks
       FROM providers p WHERE p.facility_id IS NOT NULL ORDER BY p.id LIMIT 1`,
    )
    const row = rows[0]!
    const practitioner = (await client.read({ resourceType: 'Practitioner', id: String(row.id) })) as Record<string, unknown>
    expectValid(practitioner)
    expect(practitioner.identifier).toEqual([expect.objectContaining({ system: FHIR_SYSTEMS.npi, value: row.npi })])
    expect((practitioner.name as { family: string }[])[0]!.family).toBe(row.last_name)
    expect((practitioner.meta as { profile: string[] }).profile[0]).toMatch(/plannet-Practitioner$/)

    // one role per network the clinician is in, each read by its id {provider}-n{insurer}
    expect(row.networks.length).toBeGreaterThan(1)
    for (const networkId of row.networks) {
      const role = (await client.read({ resourceType: 'PractitionerRole', id: `${row.id}-n${networkId}` })) as unknown as Record<
        string,
        unknown
      > & {
        id: string
        extension: {
          url: string
          valueReference?: { reference: string }
          extension?: { url: string; valueCodeableConcept?: { coding: { code: string }[] }; valueReference?: { reference: string } }[]
        }[]
        specialty: { coding: { system: string; code: string }[] }[]
      }
      expectValid(role)
      expect(role.id).toBe(`${row.id}-n${networkId}`)
      expect(role.specialty[0]!.coding[0]).toEqual(expect.objectContaining({ system: FHIR_SYSTEMS.nucc, code: row.primary_taxonomy_code }))
      const newPatients = role.extension.find((extension) => extension.url === FHIR_EXTENSIONS.newPatients)!
      expect(newPatients.extension![0]!.valueCodeableConcept!.coding[0]!.code).toBe(row.accepting_new_patients ? 'newpt' : 'nopt')
      expect(newPatients.extension![1]).toEqual({ url: 'fromNetwork', valueReference: { reference: `Organization/net-${networkId}` } })
      const networks = role.extension
        .filter((extension) => extension.url === FHIR_EXTENSIONS.networkReference)
        .map((extension) => extension.valueReference!.reference)
      expect(networks).toEqual([`Organization/net-${networkId}`])
      expect(role.organization).toEqual({ reference: `Organization/fac-${row.facility_id}` })
      expect(role.location).toEqual([{ reference: `Location/prov-${row.id}` }])
    }
    // vread of a role's current version
    const first = `${row.id}-n${row.networks[0]}`
    const current = (await client.read({ resourceType: 'PractitionerRole', id: first })) as unknown as { meta: { versionId: string } }
    expect(await client.vread({ resourceType: 'PractitionerRole', id: first, version: current.meta.versionId })).toEqual(current)

    // no role by the plain id of a clinician in networks, nor in a network it is not in, nor by an id of no such form
    const outside = (
      await ctx.db.pool.query<{ id: number }>('SELECT id FROM insurers WHERE NOT (id = ANY($1::int[])) ORDER BY id LIMIT 1', [row.networks])
    ).rows[0]!.id
    for (const id of [
      `${row.id}`,
      `${row.id}-n${outside}`,
      `${row.id}-n999999`,
      `${row.id}-n`,
      `${row.id}-x${row.networks[0]}`,
      `${row.id}-n0${row.networks[0]}`,
      `n${row.networks[0]}`,
      `999999999-n${row.networks[0]}`,
    ]) {
      const response = await get(`/PractitionerRole/${id}`)
      expect({ id, status: response.status }).toEqual({ id, status: 404 })
      const body = (await response.json()) as { resourceType: string; issue: { diagnostics: string }[] }
      expect(body.resourceType).toBe('OperationOutcome')
      expect(body.issue[0]!.diagnostics).toMatch(/does not exist/)
      expect((await get(`/PractitionerRole/${id}/_history/${current.meta.versionId}`)).status).toBe(404)
    }
    // (every clinician of the ci dataset is in some network: the role of a clinician in none, {provider}, is written and
    // named in resources.test.ts)

    const network = (await client.read({ resourceType: 'Organization', id: `net-${row.networks[0]}` })) as Record<string, unknown>
    expectValid(network)
    expect(network.type).toEqual([{ coding: [expect.objectContaining({ code: 'ntwk' })] }])
    expect(network.partOf).toEqual(expect.objectContaining({ reference: `Organization/ins-${row.networks[0]}` }))
  })

  it('answers OperationOutcomes: 404 for an unknown id or type, 400 for unknown or malformed parameters (strict), never 500', async () => {
    const cases: [string, number, RegExp][] = [
      ['/Practitioner/999999999', 404, /does not exist/],
      ['/Practitioner/fac-1', 404, /does not exist/],
      ['/Patient/1', 404, /not served/],
      ['/Patient?name=x', 404, /not served/],
      ['/Practitioner/a_b', 400, /not a FHIR id/],
      ['/Practitioner?foo=bar', 400, /Unknown search parameter "foo"/],
      ['/Practitioner?name:sounds=x', 400, /Modifier :sounds/],
      ['/PractitionerRole?location.foo=1', 400, /location\.foo is not supported/],
      ['/PractitionerRole?_count=0', 400, /_count/],
      ['/PractitionerRole?_count=abc', 400, /_count/],
      ['/PractitionerRole?_count=1001', 400, /_count/],
      ['/PractitionerRole?_total=estimate', 400, /_total/],
      ['/PractitionerRole?_include=PractitionerRole:service', 400, /_include=PractitionerRole:service is not supported/],
      ['/PractitionerRole?_include:iterate=PractitionerRole:location', 400, /Unknown search parameter/],
      ['/PractitionerRole?_cursor=nonsense', 400, /paging cursor/],
      ['/Location?near=91|0|10|km', 400, /latitude/],
      ['/Location?near=40|-74|10|furlong', 400, /unit/],
      ['/Location?near=40|-74|10000|km', 400, /at most/],
      ['/Location?near=40|-74|1|km&near=41|-74|1|km', 400, /only once/],
      ['/Practitioner?_lastUpdated=ge2025-13-01', 400, /calendar date/],
      ['/Practitioner?_lastUpdated=yesterday', 400, /not a FHIR date/],
      ['/Practitioner?name=', 400, /empty/],
      ['/Practitioner?_format=xml', 406, /JSON/],
    ]
    for (const [path, status, message] of cases) {
      const response = await get(path)
      const body = (await response.json()) as { resourceType: string; issue: { severity: string; diagnostics: string }[] }
      expect({ path, status: response.status }).toEqual({ path, status })
      expect(response.headers.get('content-type')).toMatch(/^application\/fhir\+json/)
      expect(body.resourceType).toBe('OperationOutcome')
      expectValid(body)
      expect(body.issue[0]!.diagnostics).toMatch(message)
    }
    const write = await fetch(`${base}/Practitioner`, { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: '{}' })
    expect(write.status).toBe(405)
    const jsonSearch = await fetch(`${base}/Practitioner/_search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(jsonSearch.status).toBe(415)
    expect(((await jsonSearch.json()) as { resourceType: string }).resourceType).toBe('OperationOutcome')
    // lenient handling drops what it does not know
    const lenient = await get('/Practitioner?foo=bar&_count=1', { prefer: 'handling=lenient' })
    expect(lenient.status).toBe(200)
    expect(((await lenient.json()) as Bundle).link[0]!.url).not.toContain('foo')
  })

  it('pages PractitionerRole to the end by keyset links: each (clinician, network) once, in order, pages full, total accurate', async () => {
    const expected = await sqlRoles()
    const clinicians = (await ctx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM providers')).rows[0]!.n
    // a role per network: many more roles than clinicians
    expect(expected.length).toBeGreaterThan(3 * clinicians)
    let bundle = (await client.search({
      resourceType: 'PractitionerRole',
      searchParams: { _count: 1000, _total: 'accurate' },
    })) as unknown as Bundle
    expect(bundle.total).toBe(expected.length)
    expectValid(bundle)
    const ids: string[] = []
    const sizes: number[] = []
    const offProfile: string[] = []
    for (;;) {
      const page = matches(bundle)
      sizes.push(page.length)
      // every role: Plan-Net's elements on the first pages' (expectPlanNet), network-reference 0..1 and the same
      // network as newpatients' fromNetwork and as the id on all (in plain JavaScript: 36,000 roles)
      if (sizes.length <= 2) for (const entry of page) expectPlanNet(entry.resource)
      for (const entry of page) if (!oneNetwork(entry.resource)) offProfile.push(entry.resource.id)
      ids.push(...page.map((entry) => entry.resource.id))
      const next = client.nextPage({ bundle: bundle as never })
      if (!next) break
      bundle = (await next) as unknown as Bundle
    }
    expect(offProfile).toEqual([])
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual(expected)
    // every page but the last holds exactly 1,000 roles, spanning clinicians
    expect(sizes.slice(0, -1).every((size) => size === 1000)).toBe(true)
    expect(sizes.length).toBe(Math.ceil(expected.length / 1000))
    // a small page size ends pages part way through a clinician's roles, and goes on from there
    const small = await all('PractitionerRole', { _count: 5, _id: expected.slice(0, 40).join(',') })
    expect(roleIds(small.entries)).toEqual(expected.slice(0, 40))
    expect(small.pages).toBe(8)
  })

  it('pages Organization across facilities, health systems, payers and networks', async () => {
    const { rows } = await ctx.db.pool.query<{ f: number; h: number; i: number }>(
      'SELECT (SELECT count(*) FROM facilities)::int AS f, (SELECT count(*) FROM health_systems)::int AS h, (SELECT count(*) FROM insurers)::int AS i',
    )
    const counts = rows[0]!
    const { entries, total } = await all('Organization', { _count: 97, _total: 'accurate' }, true)
    const ids = entries.map((entry) => entry.resource.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(counts.f + counts.h + 2 * counts.i)
    expect(total).toBe(ids.length)
    const networks = await all('Organization', { type: `${FHIR_SYSTEMS.orgType}|ntwk`, _count: 1000 })
    expect(networks.entries.length).toBe(counts.i)
  })

  it('searches by specialty, role, name, chained location address and network name, as the tables say', async () => {
    const { rows } = await ctx.db.pool.query<{ code: string; zip: string }>(
      `SELECT primary_taxonomy_code AS code, (SELECT zip_code FROM providers GROUP BY zip_code ORDER BY count(*) DESC, zip_code LIMIT 1) AS zip
       FROM providers GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
    )
    const { code, zip } = rows[0]!
    // criteria on the clinician select clinicians: each with all its roles
    const bySpecialty = await all('PractitionerRole', { specialty: `${FHIR_SYSTEMS.nucc}|${code}`, _count: 1000, _total: 'accurate' })
    const specialtyRoles = await sqlRoles('p.primary_taxonomy_code = $1', [code])
    expect(roleIds(bySpecialty.entries)).toEqual(specialtyRoles)
    expect(bySpecialty.total).toBe(specialtyRoles.length)

    const byZip = await all('PractitionerRole', { 'location.address-postalcode': zip.slice(0, 3), specialty: code, _count: 1000 })
    expect(roleIds(byZip.entries)).toEqual(
      await sqlRoles('p.zip_code LIKE $1 AND p.primary_taxonomy_code = $2', [`${zip.slice(0, 3)}%`, code]),
    )

    // network.name: the roles of the networks named only (prefix, case-insensitive), not the clinicians' other roles
    const byNetwork = await all('PractitionerRole', { 'network.name': 'aetna', _count: 1000, _total: 'accurate' })
    const aetnaNetworks = await sqlIds(`SELECT id FROM insurers WHERE lower(name || ' Network') LIKE 'aetna%' ORDER BY id`)
    const aetna = await sqlRoles('TRUE', [], aetnaNetworks)
    expect(aetna.length).toBeGreaterThan(0)
    expect(roleIds(byNetwork.entries)).toEqual(aetna)
    expect(byNetwork.total).toBe(aetna.length)
    const aetnaId = (await ctx.db.pool.query<{ id: number }>(`SELECT id FROM insurers WHERE name = 'Aetna'`)).rows[0]!.id
    const byNetworkRef = await all('PractitionerRole', { network: `Organization/net-${aetnaId}`, _count: 1000, _total: 'accurate' })
    const aetnaRoles = await sqlRoles('TRUE', [], [aetnaId])
    expect(roleIds(byNetworkRef.entries)).toEqual(aetnaRoles)
    expect(byNetworkRef.total).toBe(aetnaRoles.length)
    for (const entry of byNetworkRef.entries)
      expect(
        (entry.resource.extension as { url: string; valueReference?: { reference: string } }[]).filter(
          (extension) => extension.url === FHIR_EXTENSIONS.networkReference,
        ),
      ).toEqual([{ url: FHIR_EXTENSIONS.networkReference, valueReference: { reference: `Organization/net-${aetnaId}` } }])

    const physicians = await all('PractitionerRole', { role: `${FHIR_SYSTEMS.providerRole}|ph`, _count: 1000 })
    expect(roleIds(physicians.entries)).toEqual(await sqlRoles(`p.provider_kind = 'physician'`))

    const family = (await ctx.db.pool.query<{ last_name: string }>('SELECT last_name FROM providers ORDER BY id LIMIT 1')).rows[0]!
      .last_name
    const byName = await all('Practitioner', { family: family.toUpperCase(), _count: 1000 })
    expect(byName.entries.map((entry) => Number(entry.resource.id))).toEqual(
      await sqlIds('SELECT id FROM providers WHERE lower(last_name) LIKE lower($1) ORDER BY id', [`${family}%`]),
    )

    const exact = await all('Practitioner', { 'family:exact': family.toUpperCase(), _count: 1000 })
    expect(exact.entries).toEqual([])

    const accepting = await all('PractitionerRole', { 'new-patients': 'nopt', _count: 1000 })
    expect(roleIds(accepting.entries)).toEqual(await sqlRoles('NOT p.accepting_new_patients'))

    const facilityLocations = await all('Location', { type: `${FHIR_SYSTEMS.locationRole}|HOSP`, _count: 1000 })
    expect(facilityLocations.entries.map((entry) => entry.resource.id)).toEqual(
      (await sqlIds(`SELECT id FROM facilities WHERE facility_type IN ('hospital', 'critical_access') ORDER BY id`)).map(
        (id) => `fac-${id}`,
      ),
    )
  })

  it('_lastUpdated filters by the rows time', async () => {
    const none = (await client.search({
      resourceType: 'Practitioner',
      searchParams: { _lastUpdated: 'lt2000-01-01', _total: 'accurate' },
    })) as unknown as Bundle
    expect(none.total).toBe(0)
    const count = (await ctx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM providers')).rows[0]!.n
    const since = (await client.search({
      resourceType: 'Practitioner',
      searchParams: { _lastUpdated: 'ge2000-01-01', _total: 'accurate', _count: 1 },
    })) as unknown as Bundle
    expect(since.total).toBe(count)
  })

  it('_include and _revinclude add the referenced and referring resources', async () => {
    const row = (
      await ctx.db.pool.query<{ id: number; facility_id: number }>(
        'SELECT id, facility_id FROM providers WHERE facility_id IS NOT NULL ORDER BY id LIMIT 1',
      )
    ).rows[0]!
    const roles = await sqlRoles('p.id = $1', [row.id])
    expect(roles.length).toBeGreaterThan(1)
    const networkOf = (role: string) => `Organization/net-${role.split('-n')[1]}`
    const response = await get(
      `/PractitionerRole?_id=${roles[0]}&_include=PractitionerRole:practitioner&_include=PractitionerRole:organization&_include=PractitionerRole:location&_include=PractitionerRole:network`,
    )
    const bundle = (await response.json()) as Bundle
    expectValid(bundle)
    expect(matches(bundle).map((entry) => entry.resource.id)).toEqual([roles[0]])
    const included = (bundle.entry ?? [])
      .filter((entry) => entry.search.mode === 'include')
      .map((entry) => `${entry.resource.resourceType}/${entry.resource.id}`)
    expect(included.sort()).toEqual(
      [`Practitioner/${row.id}`, `Organization/fac-${row.facility_id}`, `Location/prov-${row.id}`, networkOf(roles[0]!)].sort(),
    )
    // a clinician's roles: each network Organization included once
    const allRoles = (await (
      await get(`/PractitionerRole?practitioner=Practitioner/${row.id}&_include=PractitionerRole:network&_total=accurate&_count=1000`)
    ).json()) as Bundle
    expect(allRoles.total).toBe(roles.length)
    expect(matches(allRoles).map((entry) => entry.resource.id)).toEqual(roles)
    expect(
      (allRoles.entry ?? []).filter((entry) => entry.search.mode === 'include').map((entry) => `Organization/${entry.resource.id}`),
    ).toEqual(roles.map(networkOf))
    // _id names roles: several, the plain id of a clinician in networks none, and each criterion must hold
    const named = (await (await get(`/PractitionerRole?_id=${roles[1]},${roles[0]},${row.id}&_total=accurate`)).json()) as Bundle
    expect(matches(named).map((entry) => entry.resource.id)).toEqual([roles[0], roles[1]])
    expect(named.total).toBe(2)
    const both = (await (
      await get(`/PractitionerRole?_id=${roles[0]},${roles[1]}&network=${networkOf(roles[1]!)}&_total=accurate`)
    ).json()) as Bundle
    expect(matches(both).map((entry) => entry.resource.id)).toEqual([roles[1]])
    expect(both.total).toBe(1)
    // two networks that must both hold: no role is in two networks
    const twoNetworks = (await (
      await get(`/PractitionerRole?network=${networkOf(roles[0]!)}&network=${networkOf(roles[1]!)}&_total=accurate`)
    ).json()) as Bundle
    expect(matches(twoNetworks)).toEqual([])
    expect(twoNetworks.total).toBe(0)

    // Practitioner?_revinclude=PractitionerRole:practitioner: every role of the clinician
    const practitioner = (await (await get(`/Practitioner?_id=${row.id}&_revinclude=PractitionerRole:practitioner`)).json()) as Bundle
    expectValid(practitioner)
    expect((practitioner.entry ?? []).filter((entry) => entry.search.mode === 'include').map((entry) => entry.resource.id)).toEqual(roles)

    const reverse = (await (
      await get(`/Organization?_id=fac-${row.facility_id}&_revinclude=PractitionerRole:organization`)
    ).json()) as Bundle
    const facilityRoles = await sqlRoles('p.facility_id = $1', [row.facility_id])
    const revincluded = (reverse.entry ?? []).filter((entry) => entry.search.mode === 'include').map((entry) => entry.resource.id)
    expect(revincluded).toEqual(facilityRoles.slice(0, 1000))

    // a network's clinicians are more than one page may carry: the first 1,000 by id, and an outcome entry says so
    const network = (await ctx.db.pool.query<{ id: number }>(`SELECT id FROM insurers WHERE name = 'Aetna'`)).rows[0]!.id
    const cut = (await (await get(`/Organization?_id=net-${network}&_revinclude=PractitionerRole:network`)).json()) as Bundle
    expectValid(cut)
    // the network's roles only, not its clinicians' roles in other networks
    const members = await sqlRoles('TRUE', [], [network])
    expect(members.length).toBeGreaterThan(1000)
    const cutRoles = (cut.entry ?? []).filter((entry) => entry.search.mode === 'include').map((entry) => entry.resource.id)
    expect(cutRoles).toEqual(members.slice(0, 1000))
    const outcome = (cut.entry ?? []).find((entry) => entry.search.mode === 'outcome')!
    expect(outcome.resource).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'warning', code: 'incomplete' }] })
  })

  it('serves HealthcareService and OrganizationAffiliation from the facilities and their health systems, as the tables say', async () => {
    const services = await all('HealthcareService', { _count: 200, _total: 'accurate' }, true)
    const facilities = await sqlIds('SELECT id FROM facilities ORDER BY id')
    expect(services.entries.map((entry) => entry.resource.id)).toEqual(facilities.map((id) => `fac-${id}`))
    expect(services.total).toBe(facilities.length)

    const hospitals = await all('HealthcareService', { 'service-category': `${FHIR_SYSTEMS.serviceCategory}|hosp`, _count: 1000 })
    expect(hospitals.entries.map((entry) => entry.resource.id)).toEqual(
      (await sqlIds(`SELECT id FROM facilities WHERE facility_type IN ('hospital', 'critical_access') ORDER BY id`)).map(
        (id) => `fac-${id}`,
      ),
    )
    const urgent = await all('HealthcareService', { 'service-category:text': 'urgent', _count: 1000 })
    expect(urgent.entries.length).toBe((await sqlIds(`SELECT id FROM facilities WHERE facility_type = 'urgent_care'`)).length)

    const affiliations = await all('OrganizationAffiliation', { _count: 200, _total: 'accurate' }, true)
    const affiliated = await sqlIds('SELECT id FROM facilities WHERE health_system_id IS NOT NULL ORDER BY id')
    expect(affiliated.length).toBeGreaterThan(0)
    expect(affiliations.entries.map((entry) => entry.resource.id)).toEqual(affiliated.map((id) => `fac-${id}`))
    expect(affiliations.total).toBe(affiliated.length)

    const system = (
      await ctx.db.pool.query<{ id: number; name: string }>(
        `SELECT h.id, h.name FROM health_systems h WHERE EXISTS (SELECT 1 FROM facilities f WHERE f.health_system_id = h.id) ORDER BY h.id LIMIT 1`,
      )
    ).rows[0]!
    const members = (await sqlIds('SELECT id FROM facilities WHERE health_system_id = $1 ORDER BY id', [system.id])).map(
      (id) => `fac-${id}`,
    )
    const bySystem = await all('OrganizationAffiliation', { 'primary-organization': `Organization/hs-${system.id}`, _count: 1000 })
    expect(bySystem.entries.map((entry) => entry.resource.id)).toEqual(members)
    for (const entry of bySystem.entries) expect(entry.resource.organization).toEqual({ reference: `Organization/hs-${system.id}` })
    const byName = await all('OrganizationAffiliation', { 'primary-organization.name:exact': system.name, _count: 1000 })
    expect(byName.entries.map((entry) => entry.resource.id)).toEqual(members)
    const hospitalRoles = await all('OrganizationAffiliation', { role: `${FHIR_SYSTEMS.affiliationRole}|hospital`, _count: 1000 })
    expect(hospitalRoles.entries.map((entry) => entry.resource.id)).toEqual(
      (
        await sqlIds(
          `SELECT id FROM facilities WHERE health_system_id IS NOT NULL AND facility_type IN ('hospital', 'critical_access') ORDER BY id`,
        )
      ).map((id) => `fac-${id}`),
    )

    // _include and _revinclude across the new types
    const first = members[0]!
    const included = (await (
      await get(
        `/OrganizationAffiliation?_id=${first}&_include=OrganizationAffiliation:primary-organization&_include=OrganizationAffiliation:participating-organization&_include=OrganizationAffiliation:location&_include=OrganizationAffiliation:service`,
      )
    ).json()) as Bundle
    expectValid(included)
    expect(
      (included.entry ?? [])
        .filter((entry) => entry.search.mode === 'include')
        .map((entry) => `${entry.resource.resourceType}/${entry.resource.id}`)
        .sort(),
    ).toEqual([`HealthcareService/${first}`, `Location/${first}`, `Organization/${first}`, `Organization/hs-${system.id}`].sort())
    const reverse = (await (
      await get(`/Organization?_id=hs-${system.id}&_revinclude=OrganizationAffiliation:primary-organization`)
    ).json()) as Bundle
    expect(
      (reverse.entry ?? [])
        .filter((entry) => entry.search.mode === 'include')
        .map((entry) => `${entry.resource.resourceType}/${entry.resource.id}`),
    ).toEqual(members.map((id) => `OrganizationAffiliation/${id}`))
    const byLocation = (await (await get(`/Location?_id=${first}&_revinclude=HealthcareService:location`)).json()) as Bundle
    expect(
      (byLocation.entry ?? [])
        .filter((entry) => entry.search.mode === 'include')
        .map((entry) => `${entry.resource.resourceType}/${entry.resource.id}`),
    ).toEqual([`HealthcareService/${first}`])
    const service = (await client.read({ resourceType: 'HealthcareService', id: first })) as Record<string, unknown>
    expectValid(service)
    expect(service.location).toEqual([{ reference: `Location/${first}` }])
  })

  it('serves InsurancePlan per insurer: its product type from the kind, its network, its plan designs from plan_cost_sharing', async () => {
    const { rows: insurers } = await ctx.db.pool.query<{ id: number; name: string; kind: string }>(
      'SELECT id, name, kind FROM insurers ORDER BY id',
    )
    const plans = await all('InsurancePlan', { _count: 1000, _total: 'accurate' }, true)
    expect(plans.entries.map((entry) => entry.resource.id)).toEqual(insurers.map((row) => `ins-${row.id}`))
    expect(plans.total).toBe(insurers.length)
    const aetna = insurers.find((row) => row.name === 'Aetna')!
    const plan = plans.entries.find((entry) => entry.resource.id === `ins-${aetna.id}`)!.resource as unknown as Record<string, unknown> & {
      plan: { type: { coding: { code: string }[]; text: string }; generalCost: { type: { text: string }; cost: { value: number } }[] }[]
    }
    expect(plan.type).toEqual([{ coding: [expect.objectContaining({ system: FHIR_SYSTEMS.productType, code: 'commppo' })] }])
    expect(plan.network).toEqual([expect.objectContaining({ reference: `Organization/net-${aetna.id}` })])
    const designs = (
      await ctx.db.pool.query<{ plan_design: string; deductible: number }>(
        `SELECT plan_design, deductible::float8 AS deductible FROM plan_cost_sharing
         WHERE plan_design <> '' AND (payer_name = $1 OR (payer_name = '' AND payer_kind = $2 AND plan_name = '')) ORDER BY deductible, id`,
        [aetna.name, aetna.kind],
      )
    ).rows
    expect(designs.length).toBeGreaterThan(0)
    // one plan per plan type (Plan-Net's plan-type-is-distinct), each with its designs' deductibles in order
    const typeOf = (deductible: number) => (deductible >= 1650 ? 'highdeductible' : 'lowdeductible')
    const types = [...new Set(designs.map((row) => typeOf(row.deductible)))]
    expect(types).toEqual(['lowdeductible', 'highdeductible'])
    expect(plan.plan.map((item) => item.type.coding[0]!.code)).toEqual(types)
    expect(plan.plan.map((item) => item.generalCost.map((cost) => [cost.type.text, cost.cost.value]))).toEqual(
      types.map((type) => designs.filter((row) => typeOf(row.deductible) === type).map((row) => [row.plan_design, row.deductible])),
    )

    const medicaid = await all('InsurancePlan', { type: `${FHIR_SYSTEMS.productType}|medi`, _count: 1000 })
    expect(medicaid.entries.map((entry) => entry.resource.id)).toEqual(
      insurers.filter((row) => row.kind === 'medicaid').map((row) => `ins-${row.id}`),
    )
    const high = await all('InsurancePlan', { 'plan-type': `${FHIR_SYSTEMS.planType}|highdeductible`, _count: 1000 })
    expect(high.entries.length).toBeGreaterThan(0)
    for (const entry of high.entries)
      expect(
        (entry.resource.plan as { type: { coding: { code: string }[] } }[]).some((item) => item.type.coding[0]!.code === 'highdeductible'),
      ).toBe(true)
    const byPayer = (await (
      await get(`/InsurancePlan?administered-by=Organization/ins-${aetna.id}&_include=InsurancePlan:administered-by`)
    ).json()) as Bundle
    expectValid(byPayer)
    expect((byPayer.entry ?? []).map((entry) => `${entry.search.mode} ${entry.resource.resourceType}/${entry.resource.id}`)).toEqual([
      `match InsurancePlan/ins-${aetna.id}`,
      `include Organization/ins-${aetna.id}`,
    ])
    const byName = await all('InsurancePlan', { 'owned-by.name': 'aetna', _count: 10 })
    expect(byName.entries.map((entry) => entry.resource.id)).toEqual([`ins-${aetna.id}`])
    const reverse = (await (await get(`/Organization?_id=ins-${aetna.id}&_revinclude=InsurancePlan:owned-by`)).json()) as Bundle
    expect((reverse.entry ?? []).filter((entry) => entry.search.mode === 'include').map((entry) => entry.resource.id)).toEqual([
      `ins-${aetna.id}`,
    ])
  })

  it('network filters: the smallest network by reference and by name, as the networks JSON says', async () => {
    const smallest = (
      await ctx.db.pool.query<{ id: number; name: string }>(
        `SELECT i.id, i.name FROM insurers i JOIN providers p ON p.aggregated_insurance_networks_v1 ->> i.name = 'true'
         GROUP BY i.id, i.name ORDER BY count(*), i.id LIMIT 1`,
      )
    ).rows[0]!
    const members = await sqlRoles('TRUE', [], [smallest.id])
    expect(members.length).toBeGreaterThan(0)
    expect(members.every((id) => id.endsWith(`-n${smallest.id}`))).toBe(true)
    const byRef = await all('PractitionerRole', { network: `Organization/net-${smallest.id}`, _count: 7, _total: 'accurate' })
    expect(roleIds(byRef.entries)).toEqual(members)
    expect(byRef.total).toBe(members.length)
    const byName = await all('PractitionerRole', { 'network.name:exact': `${smallest.name} Network`, _count: 7 })
    expect(roleIds(byName.entries)).toEqual(members)
    const none = await all('PractitionerRole', { 'network.name': 'no such network', _count: 7 })
    expect(none.entries).toEqual([])
  })

  it('vread answers the current version (meta.versionId) and 404 for any other; history is refused with an OperationOutcome', async () => {
    const current = (await client.read({ resourceType: 'InsurancePlan', id: 'ins-1' })) as unknown as { meta: { versionId: string } }
    const viaClient = (await client.vread({ resourceType: 'InsurancePlan', id: 'ins-1', version: current.meta.versionId })) as unknown
    expect(viaClient).toEqual(current)
    const response = await get(`/Practitioner/1/_history/${current.meta.versionId}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('etag')).toBe(`W/"${current.meta.versionId}"`)
    expect(((await response.json()) as { meta: { versionId: string } }).meta.versionId).toBe(current.meta.versionId)
    const cases: [string, number, RegExp][] = [
      ['/Practitioner/1/_history/0.0', 404, /earlier versions are not kept/],
      ['/Practitioner/999999999/_history/1', 404, /does not exist/],
      ['/Practitioner/1/_history/a_b', 400, /not a FHIR version id/],
      ['/Patient/1/_history/1', 404, /not served/],
      ['/Practitioner/1/_history', 400, /History is not kept/],
      ['/Practitioner/_history', 400, /History is not kept/],
      ['/_history', 400, /History is not kept/],
      ['/Endpoint/1', 404, /not served/],
      ['/Endpoint?organization=Organization/fac-1', 404, /not served/],
      ['/InsurancePlan?coverage-area=Location/fac-1', 400, /Unknown search parameter "coverage-area"/],
      ['/HealthcareService?_include=HealthcareService:endpoint', 400, /not supported/],
    ]
    for (const [path, status, message] of cases) {
      const answer = await get(path)
      expect({ path, status: answer.status }).toEqual({ path, status })
      const body = (await answer.json()) as { resourceType: string; issue: { diagnostics: string }[] }
      expect(body.resourceType).toBe('OperationOutcome')
      expectValid(body)
      expect(body.issue[0]!.diagnostics).toMatch(message)
    }
  })

  it('POST _search answers as GET', async () => {
    const viaGet = (await (await get('/Organization?name=blue&_count=5')).json()) as Bundle
    const viaPost = await fetch(`${base}/Organization/_search`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=blue&_count=5',
    })
    expect(viaPost.status).toBe(200)
    const posted = (await viaPost.json()) as Bundle
    expect(posted.entry!.map((entry) => entry.resource.id)).toEqual(viaGet.entry!.map((entry) => entry.resource.id))
    expect(posted.entry!.length).toBe(5)
  })

  describe('near', () => {
    let center = { latitude: 0, longitude: 0 }
    beforeAll(async () => {
      // the ZIP with the most clinicians: a metro
      const { rows } = await ctx.db.pool.query<{ latitude: number; longitude: number }>(
        'SELECT z.latitude, z.longitude FROM zips z WHERE z.zip = (SELECT zip_code FROM providers GROUP BY zip_code ORDER BY count(*) DESC, zip_code LIMIT 1)',
      )
      center = rows[0]!
    })

    it('Location?near pages by distance to the end; each distance in miles is ST_Distance, and the set is ST_DWithin', async () => {
      const { latitude, longitude } = center
      const { entries } = await all('Location', { near: `${latitude}|${longitude}|25|mi`, _count: 7 }, true)
      const { rows } = await ctx.db.pool.query<{ id: string; d: number }>(
        `WITH c AS (SELECT ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography AS g)
         SELECT 'fac-' || f.id AS id, ST_Distance(f.geog, c.g) AS d FROM facilities f, c WHERE ST_Distance(f.geog, c.g) <= $3
         UNION ALL SELECT 'prov-' || p.id, ST_Distance(p.geog, c.g) FROM providers p, c WHERE ST_Distance(p.geog, c.g) <= $3`,
        [latitude, longitude, 25 * MI],
      )
      expect(rows.length).toBeGreaterThan(10)
      expect(entries.map((entry) => entry.resource.id).sort()).toEqual(rows.map((row) => row.id).sort())
      const sqlDistance = new Map(rows.map((row) => [row.id, row.d / MI]))
      let previous = -1
      for (const entry of entries) {
        const extension = entry.search.extension!.find((item) => item.url === FHIR_EXTENSIONS.locationDistance)!
        expect(extension.valueDistance.unit).toBe('mi')
        expect(extension.valueDistance.code).toBe('[mi_i]')
        expect(extension.valueDistance.value).toBeCloseTo(sqlDistance.get(entry.resource.id)!, 5)
        expect(extension.valueDistance.value).toBeGreaterThanOrEqual(previous)
        previous = extension.valueDistance.value
      }
    })

    it('PractitionerRole?specialty=&location.near= in km, sorted by distance', async () => {
      const { latitude, longitude } = center
      const code = (
        await ctx.db.pool.query<{ code: string }>(
          'SELECT primary_taxonomy_code AS code FROM providers GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1',
        )
      ).rows[0]!.code
      const { entries, total } = await all('PractitionerRole', {
        specialty: code,
        'location.near': `${latitude}|${longitude}|300|km`,
        _count: 50,
        _total: 'accurate',
      })
      const { rows } = await ctx.db.pool.query<{ id: number; d: number }>(
        `SELECT p.id, ST_Distance(p.geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography) AS d FROM providers p
         WHERE p.primary_taxonomy_code = $3 AND ST_Distance(p.geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography) <= 300000
         ORDER BY d, p.id`,
        [latitude, longitude, code],
      )
      expect(rows.length).toBeGreaterThan(0)
      // each clinician's roles (by network) in its place by distance, each with the clinician's distance
      const roles = await sqlRoles('p.primary_taxonomy_code = $1 AND p.id = ANY($2::int[])', [code, rows.map((row) => row.id)])
      const rolesOf = new Map<number, string[]>()
      for (const role of roles) {
        const clinician = Number(role.split('-')[0])
        rolesOf.set(clinician, [...(rolesOf.get(clinician) ?? []), role])
      }
      const expected = rows.flatMap((row) => rolesOf.get(row.id)!.map((id) => ({ id, d: row.d })))
      expect(expected.length).toBeGreaterThan(rows.length)
      expect(roleIds(entries)).toEqual(expected.map((role) => role.id))
      expect(total).toBe(expected.length)
      entries.forEach((entry, index) => {
        expect(entry.search.extension![0]!.valueDistance.value).toBeCloseTo(expected[index]!.d / 1000, 5)
        expect(entry.search.extension![0]!.valueDistance.unit).toBe('km')
      })
      // location.near alone (no other criterion): the same order, read from the geography index
      const alone = await all('PractitionerRole', { 'location.near': `${latitude}|${longitude}|5|km`, _count: 50 })
      const { rows: near } = await ctx.db.pool.query<{ id: number }>(
        `SELECT p.id FROM providers p WHERE ST_Distance(p.geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography) <= 5000
         ORDER BY ST_Distance(p.geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography), p.id`,
        [latitude, longitude],
      )
      const nearRoles = await sqlRoles('p.id = ANY($1::int[])', [near.map((row) => row.id)])
      const order = new Map(near.map((row, index) => [row.id, index]))
      nearRoles.sort((a, b) => order.get(Number(a.split('-')[0]))! - order.get(Number(b.split('-')[0]))!)
      expect(nearRoles.length).toBeGreaterThan(100)
      expect(roleIds(alone.entries)).toEqual(nearRoles)
    })
  })

  it('ETag from the data version: If-None-Match answers 304, the same meta.versionId', async () => {
    const first = await get('/Practitioner/1')
    const etag = first.headers.get('etag')!
    const resource = (await first.json()) as { meta: { versionId: string } }
    expect(etag).toBe(`W/"${resource.meta.versionId}"`)
    expect((await get('/Practitioner/1', { 'if-none-match': etag })).status).toBe(304)
    const search = await get('/Location?address-state=NY&_count=3')
    const searchTag = search.headers.get('etag')!
    expect((await get('/Location?address-state=NY&_count=3', { 'if-none-match': searchTag })).status).toBe(304)
    expect((await get('/Location?address-state=NY&_count=4', { 'if-none-match': searchTag })).status).toBe(200)
  })

  it('writes a page in the encoding asked (Brotli first, then gzip, deflate, none), the same Bundle; pages written at once stay whole', async () => {
    const entriesOf = async (response: Response) => ((await response.json()) as Bundle).entry!.map((entry) => JSON.stringify(entry))
    const path = '/PractitionerRole?_count=200'
    const plain = await get(path, { 'accept-encoding': 'identity' })
    expect(plain.headers.get('content-encoding')).toBeNull()
    const expected = await entriesOf(plain)
    for (const [asked, chosen] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip, deflate', 'gzip'],
      ['deflate', 'deflate'],
    ] as const) {
      const response = await get(path, { 'accept-encoding': asked })
      expect(response.headers.get('content-encoding'), asked).toBe(chosen)
      expect(await entriesOf(response)).toEqual(expected)
    }
    // pages of 1,000 one after the other, then all at once in every encoding, their bodies read only once every
    // answer has begun: the same entries (the buffers the pages are written into are reused, lib/answer-buffers.ts)
    const urls: string[] = []
    let next: string | undefined = `${base}/PractitionerRole?_count=1000`
    while (next && urls.length < 3) {
      urls.push(next)
      next = ((await (await fetch(next)).json()) as Bundle).link.find((link) => link.relation === 'next')?.url
    }
    const one: string[][] = []
    for (const url of urls) one.push(await entriesOf(await fetch(url, { headers: { 'accept-encoding': 'identity' } })))
    const encodings = ['identity', 'br', 'gzip']
    const begun = await Promise.all(
      urls.flatMap((url) => encodings.map((encoding) => fetch(url, { headers: { 'accept-encoding': encoding } }))),
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    const atOnce: string[][] = []
    for (const response of begun) atOnce.push(await entriesOf(response))
    atOnce.forEach((entries, i) => expect(entries).toEqual(one[Math.floor(i / encodings.length)]))
  })

  it('answers 16 chained, reverse-chained, near and including searches at once exactly as each alone', async () => {
    const { rows } = await ctx.db.pool.query<{ code: string; lat: number; lon: number; system: string }>(
      `SELECT (SELECT primary_taxonomy_code FROM providers GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1) AS code,
              f.latitude AS lat, f.longitude AS lon,
              (SELECT h.name FROM health_systems h ORDER BY h.id LIMIT 1) AS system
       FROM facilities f WHERE f.latitude IS NOT NULL ORDER BY f.id LIMIT 1`,
    )
    const { code, lat, lon, system } = rows[0]!
    const searches = [
      `/Practitioner?_has:PractitionerRole:practitioner:specialty=${code}&_count=200`,
      `/Organization?_has:PractitionerRole:network:specialty=${code}&_total=accurate`,
      `/Organization?_has:PractitionerRole:organization:specialty=${code}&_count=100`,
      `/PractitionerRole?network.name=aetna&_count=200&_total=accurate`,
      `/PractitionerRole?organization.partof.name=${encodeURIComponent(system.slice(0, 4))}&_count=200`,
      `/PractitionerRole?location.near=${lat}|${lon}|30|mi&specialty=${code}&_count=100`,
      `/Location?near=${lat}|${lon}|25|km&_count=100`,
      `/PractitionerRole?specialty=${code}&_count=50&_include=PractitionerRole:practitioner&_include=PractitionerRole:organization`,
    ]
    // the Bundle without what differs per answer (its meta.lastUpdated, an outcome entry's random fullUrl)
    const answer = async (path: string) => {
      const response = await get(path)
      expect(response.status, path).toBe(200)
      const bundle = (await response.json()) as Bundle
      return {
        total: bundle.total,
        link: bundle.link,
        entry: (bundle.entry ?? []).map((entry) => (entry.fullUrl.startsWith('urn:') ? entry.resource : entry)),
      }
    }
    const alone: Awaited<ReturnType<typeof answer>>[] = []
    for (const path of searches) alone.push(await answer(path))
    expect(alone.filter((bundle) => bundle.entry.length > 0).length).toBeGreaterThanOrEqual(searches.length - 1)
    const atOnce = await Promise.all([...searches, ...searches].map(answer))
    atOnce.forEach((bundle, i) => expect(bundle, searches[i % searches.length]).toEqual(alone[i % searches.length]))
  })

  it('exports NDJSON, one file per type, streamed', async () => {
    const manifest = (await (await get('/$export')).json()) as { output: { type: string; url: string }[] }
    expect(manifest.output.map((output) => output.type)).toEqual([...FHIR_RESOURCE_TYPES])
    const file = manifest.output.find((output) => output.type === 'Location')!
    const response = await fetch(file.url)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/fhir\+ndjson/)
    const lines = (await response.text()).trim().split('\n')
    const { rows } = await ctx.db.pool.query<{ n: number }>(
      'SELECT ((SELECT count(*) FROM facilities) + (SELECT count(*) FROM providers))::int AS n',
    )
    expect(lines.length).toBe(rows[0]!.n)
    const ids = lines.map((line) => (JSON.parse(line) as { id: string }).id)
    expect(new Set(ids).size).toBe(ids.length)
    expectValid(JSON.parse(lines[0]!) as object)
    // PractitionerRole: a line per (clinician, network), as paging gives them
    const roleFile = manifest.output.find((output) => output.type === 'PractitionerRole')!
    const roleLines = (await (await fetch(roleFile.url)).text()).trim().split('\n')
    const roles = await sqlRoles()
    expect(roleLines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(roles)
    // the CLI's progress total: the clinicians read (counting their roles would read every clinician's networks first)
    const clinicians = await ctx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM providers')
    expect(await exportRowCount(ctx.db.pool, 'PractitionerRole')).toBe(clinicians.rows[0]!.n)
    for (const line of roleLines.slice(0, 200)) expectPlanNet(JSON.parse(line) as Record<string, unknown>)
    expect((await get('/$export?_type=Patient')).status).toBe(400)
    expect((await get('/$export/Patient.ndjson')).status).toBe(404)
  })
})

describe('FHIR directory, signed in (FHIR_PUBLIC=false)', { timeout: 120_000 }, () => {
  const ctx = useTestApp({}, { dataset: true })

  it('refuses anonymous callers (401), callers without Care Select (403), meters each answered call, rate limits', async () => {
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/fhir/Practitioner/1' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'login' }] })

    const other = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'ATLAS' }] })
    const otherToken = await loginTokenFor(other.users[0]!, other.company.company_name)
    const denied = await ctx.app.inject({ method: 'GET', url: '/fhir/Practitioner/1', headers: { authorization: `Bearer ${otherToken}` } })
    expect(denied.statusCode).toBe(403)
    expect(denied.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'forbidden' }] })

    const tenant = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT', limit: 2 }] })
    const token = await loginTokenFor(tenant.users[0]!, tenant.company.company_name)
    const headers = { authorization: `Bearer ${token}` }
    const bad = await ctx.app.inject({ method: 'GET', url: '/fhir/Practitioner?bogus=1', headers })
    expect(bad.statusCode).toBe(400) // costs nothing
    const first = await ctx.app.inject({ method: 'GET', url: '/fhir/Practitioner/1', headers })
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-credits-remaining']).toBe('1')
    expect(first.headers['x-ratelimit-limit']).toBe('1200')
    const second = await ctx.app.inject({ method: 'GET', url: '/fhir/Practitioner?_count=1', headers })
    expect(second.statusCode).toBe(200)
    expect(second.headers['x-credits-remaining']).toBe('0')
    // a 304 costs what a 200 costs: with the credits spent, 402 rather than 304
    const etag = String(first.headers.etag)
    const third = await ctx.app.inject({ method: 'GET', url: '/fhir/Practitioner/1', headers: { ...headers, 'if-none-match': etag } })
    expect(third.statusCode).toBe(402)
    expect(third.json()).toMatchObject({ resourceType: 'OperationOutcome' })
    const used = await ctx.db.pool.query<{ n: number }>(`SELECT coalesce(sum(used), 0)::int AS n FROM credit_usage WHERE company_id = $1`, [
      tenant.company.id,
    ])
    expect(used.rows[0]!.n).toBe(2)
  })
})

/** PostgreSQL (TEST_DATABASE_URL), where statements have a timeout; the embedded database has none */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL)

/** How many statements of other backends matching `pattern` (LIKE) are running. */
async function runningStatements(pool: pg.Pool, pattern: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE $1`,
    [pattern],
  )
  return rows[0]!.n
}

describe('FHIR directory, a total that takes too long to count', { timeout: 120_000 }, () => {
  // 1 ms: counting every clinician's roles reads each one's networks, far longer than that on any machine
  const ctx = useTestApp({ FHIR_PUBLIC: 'true', FHIR_TOTAL_TIMEOUT_MS: '1' }, { dataset: true })

  it(`answers the page without a total and says why (too-costly) on PostgreSQL; counts to the end on the embedded database, which has no statement timeout`, async () => {
    const page = async (url: string) => {
      const response = await ctx.app.inject({ method: 'GET', url })
      expect(response.statusCode).toBe(200)
      return response.json<Bundle>()
    }
    const first = await page('/fhir/PractitionerRole?_total=accurate&_count=50')
    expectValid(first)
    expect(first.entry!.filter((entry) => entry.search.mode === 'match')).toHaveLength(50)
    const outcomes = (bundle: Bundle) =>
      (bundle.entry ?? []).filter((entry) => entry.search.mode === 'outcome').map((entry) => entry.resource)
    const next = first.link.find((link) => link.relation === 'next')!.url
    const second = await page(next.slice(next.indexOf('/fhir/')))
    if (onPostgres) {
      for (const bundle of [first, second]) {
        expect(bundle.total).toBeUndefined()
        expect(outcomes(bundle)).toEqual([
          {
            resourceType: 'OperationOutcome',
            issue: [{ severity: 'warning', code: 'too-costly', diagnostics: FHIR_MESSAGES.totalTooCostly(1) }],
          },
        ])
      }
      // the count was cancelled on the server, not left running
      expect(await runningStatements(ctx.db.pool, 'SELECT count(*) AS n FROM providers t%')).toBe(0)
    } else {
      // one role per network the clinician is in, one for a clinician in none
      const roles = await ctx.db.pool.query<{ n: number }>(
        `SELECT sum(greatest(1, (SELECT count(*) FROM jsonb_each(t.aggregated_insurance_networks_v1) e
           JOIN insurers i ON i.name = e.key WHERE e.value = 'true'::jsonb)))::int AS n FROM providers t`,
      )
      for (const bundle of [first, second]) {
        expect(bundle.total).toBe(roles.rows[0]!.n)
        expect(outcomes(bundle)).toEqual([])
      }
    }
  })
})

describe('FHIR directory, a search that takes too long', { timeout: 120_000 }, () => {
  // 1 ms: reading every clinician's names for a text none holds takes far longer on any machine
  const ctx = useTestApp({ FHIR_PUBLIC: 'true', FHIR_SEARCH_TIMEOUT_MS: '1' }, { dataset: true })

  it('is stopped on PostgreSQL and answers 400 too-costly (reads go on); runs to its end on the embedded database, which has no statement timeout', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/fhir/Practitioner?name:contains=qqzzxq&_count=5' })
    if (onPostgres) {
      expect(response.statusCode).toBe(400)
      expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/)
      expect(response.json()).toEqual({
        resourceType: 'OperationOutcome',
        issue: [{ severity: 'error', code: 'too-costly', diagnostics: FHIR_MESSAGES.searchTooCostly(1) }],
      })
      expect(await runningStatements(ctx.db.pool, '%qqzzxq%')).toBe(0)
    } else {
      expect(response.statusCode).toBe(200)
      expect(response.json<Bundle>().entry ?? []).toEqual([])
    }
    // a read goes by id, on the pool of its own
    const id = (await ctx.db.pool.query<{ id: number }>('SELECT min(id) AS id FROM providers')).rows[0]!.id
    expect((await ctx.app.inject({ method: 'GET', url: `/fhir/Practitioner/${id}` })).statusCode).toBe(200)
  })
})
