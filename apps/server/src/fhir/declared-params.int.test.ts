import type { AddressInfo } from 'node:net'
import { FHIR_EXTENSIONS, FHIR_SYSTEMS } from '@citrus/contracts'
import { Client } from 'fhir-kit-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loadTestDatasetFirst, useTestApp } from '../../../../test/helpers.ts'
import { CLI_ACTOR } from '../domain/audit.ts'
import { ApiTokenService } from '../domain/api-tokens.ts'
import { FHIR_REQUESTS_PER_MINUTE } from './index.ts'
import type { Bundle, TestResource } from './test-bundle.ts'

/**
 * Every search parameter, chain, reverse chain (`_has`, one case per reference it takes), `_include` and `_revinclude`
 * that /fhir/metadata declares, for every resource type, driven by fhir-kit-client: each with a value that must match a
 * known row of the ci dataset and one that must not, the matches checked against independent SQL. The list comes from the CapabilityStatement itself: a parameter
 * declared without a case here fails, so does a case of a parameter no longer declared.
 *
 * PractitionerRole ids are never built here (their form is the role model's): roles are keyed by their practitioner,
 * and checked as "every match is a clinician the SQL names, and the known clinician is among them".
 */

type Resource = TestResource
interface Statement {
  rest: {
    resource: {
      type: string
      searchParam: { name: string; documentation: string }[]
      searchInclude: string[]
      searchRevInclude: string[]
    }[]
  }[]
}
type Params = Record<string, string>

/** A clinician `t` in at least one network. */
const NETWORKED = `EXISTS (SELECT 1 FROM jsonb_each_text(t.aggregated_insurance_networks_v1) n WHERE n.value = 'true')`
const role = (id: number | string) => `PractitionerRole@${id}`

/** The result parameters every type takes (tested on their own below), not search parameters of a type. */
const RESULT_PARAMS = new Set(['_count', '_total', '_cursor'])

/** A role's key: its clinician's id (Practitioner/{id}). */
const clinicianOf = (resource: Resource) => (resource.practitioner as { reference: string }).reference.replace(/^Practitioner\//, '')
const keyOf = (resource: Resource) =>
  resource.resourceType === 'PractitionerRole' ? `PractitionerRole@${clinicianOf(resource)}` : `${resource.resourceType}/${resource.id}`

loadTestDatasetFirst()

describe('every declared search parameter, _include and _revinclude matches what the tables say', { timeout: 300_000 }, () => {
  const ctx = useTestApp({ FHIR_PUBLIC: 'true' }, { dataset: true })
  let base = ''
  let client: Client

  /** The ci dataset's rows the cases name. */
  const fx = {
    /** a clinician at its facility's very address, the facility in a health system, in at least one network */
    p: { id: 0, npi: '', first: '', last: '', city: '', state: '', zip: '', lat: 0, lon: 0, facility: 0, kind: '', taxonomy: '' },
    /** a clinician whose practice is not at its facility's address */
    away: { id: 0, facility: 0 },
    f: { id: 0, npi: '', name: '', city: '', state: '', zip: '', taxonomy: '', lat: 0, lon: 0, system: 0, systemName: '', systemCity: '' },
    aetna: { id: 0, name: 'Aetna' },
    small: { id: 0, name: '' },
    state: { code: '', clinician: 0 },
    providersAt: '',
    facilitiesAt: '',
    loadedAt: '',
    /** the clinicians in at least one network (the known clinicians of role cases are among them) */
    networked: new Set<string>(),
  }

  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/fhir`
    client = new Client({ baseUrl: base })
    const q = async <T extends object>(text: string, values: unknown[] = []) =>
      (await ctx.db.pool.query<T & Record<string, unknown>>(text, values)).rows
    const [p] = await q<{
      id: number
      npi: string
      first_name: string
      last_name: string
      city: string
      state: string
      zip_code: string
      latitude: number
      longitude: number
      facility_id: number
      provider_kind: string
      primary_taxonomy_code: string
      updated_at: Date
    }>(
      `SELECT p.id, p.npi, p.first_name, p.last_name, p.city, p.state, p.zip_code, p.latitude, p.longitude, p.facility_id, p.provider_kind,
              p.primary_taxonomy_code, p.updated_at
         FROM providers p JOIN facilities f ON f.id = p.facility_id
        WHERE f.health_system_id IS NOT NULL AND p.address = f.address_line_1 AND p.city = f.city AND p.state = f.state
          AND p.zip_code = f.zip_code AND p.provider_kind = 'physician_assistant'
          AND EXISTS (SELECT 1 FROM jsonb_each_text(p.aggregated_insurance_networks_v1) n WHERE n.value = 'true')
        ORDER BY p.id LIMIT 1`,
    )
    fx.p = {
      id: p!.id,
      npi: p!.npi,
      first: p!.first_name,
      last: p!.last_name,
      city: p!.city,
      state: p!.state,
      zip: p!.zip_code,
      lat: p!.latitude,
      lon: p!.longitude,
      facility: p!.facility_id,
      kind: p!.provider_kind,
      taxonomy: p!.primary_taxonomy_code,
    }
    fx.providersAt = p!.updated_at.toISOString()
    const [away] = await q<{ id: number; facility_id: number }>(
      `SELECT p.id, p.facility_id FROM providers p JOIN facilities f ON f.id = p.facility_id
        WHERE (p.address, p.city, p.state, p.zip_code) IS DISTINCT FROM (f.address_line_1, f.city, f.state, f.zip_code)
          AND p.facility_id <> $1 ORDER BY p.id LIMIT 1`,
      [fx.p.facility],
    )
    fx.away = { id: away!.id, facility: away!.facility_id }
    const [f] = await q<{
      id: number
      npi: string
      name: string
      city: string
      state: string
      zip_code: string
      taxonomy_code: string
      latitude: number
      longitude: number
      health_system_id: number
      system_name: string
      system_city: string
      updated_at: Date
    }>(
      `SELECT f.id, f.npi, f.name, f.city, f.state, f.zip_code, f.taxonomy_code, f.latitude, f.longitude, f.health_system_id,
              h.name AS system_name, h.city AS system_city, f.updated_at
         FROM facilities f JOIN health_systems h ON h.id = f.health_system_id WHERE f.id = $1`,
      [fx.p.facility],
    )
    fx.f = {
      id: f!.id,
      npi: f!.npi,
      name: f!.name,
      city: f!.city,
      state: f!.state,
      zip: f!.zip_code,
      taxonomy: f!.taxonomy_code,
      lat: f!.latitude,
      lon: f!.longitude,
      system: f!.health_system_id,
      systemName: f!.system_name,
      systemCity: f!.system_city,
    }
    fx.facilitiesAt = f!.updated_at.toISOString()
    fx.aetna.id = (await q<{ id: number }>(`SELECT id FROM insurers WHERE name = 'Aetna'`))[0]!.id
    // the smallest network that has a member
    const [small] = await q<{ id: number; name: string }>(
      `SELECT i.id, i.name FROM insurers i WHERE EXISTS (SELECT 1 FROM providers p WHERE p.aggregated_insurance_networks_v1 ->> i.name = 'true')
        ORDER BY (SELECT count(*) FROM providers p WHERE p.aggregated_insurance_networks_v1 ->> i.name = 'true'), i.id LIMIT 1`,
    )
    fx.small = small!
    const [state] = await q<{ state: string; id: number }>(
      `SELECT state, min(id) FILTER (WHERE ${NETWORKED}) AS id FROM providers t GROUP BY state HAVING bool_or(${NETWORKED})
        ORDER BY count(*), state LIMIT 1`,
    )
    fx.state = { code: state!.state, clinician: state!.id }
    const [load] = await q<{ t: Date }>(`SELECT max(finished_at) AS t FROM data_loads WHERE status = 'done'`)
    fx.loadedAt = load!.t.toISOString()
    fx.networked = new Set((await q<{ id: number }>(`SELECT id FROM providers t WHERE ${NETWORKED}`)).map((row) => role(row.id)))
  })

  /** Every match of a search, page after page by the next links (the FHIR client's nextPage). */
  async function matchesOf(
    resourceType: string,
    searchParams: Params,
    maxPages = 100,
  ): Promise<{ matches: Resource[]; included: Resource[] }> {
    let bundle = (await client.search({ resourceType, searchParams: { _count: '1000', ...searchParams } })) as unknown as Bundle
    const matches: Resource[] = []
    const included: Resource[] = []
    for (let pages = 1; ; pages++) {
      expect(pages, `${resourceType}: more than ${maxPages} pages`).toBeLessThanOrEqual(maxPages)
      for (const entry of bundle.entry ?? []) (entry.search.mode === 'match' ? matches : included).push(entry.resource)
      const next = client.nextPage({ bundle: bundle as never })
      if (!next || pages === maxPages) break
      bundle = (await next) as unknown as Bundle
    }
    return { matches, included }
  }

  const sqlKeys = async (text: string, values: readonly unknown[] = []) =>
    (await ctx.db.pool.query<{ key: string }>(text, [...values])).rows.map((row) => row.key).sort()

  // ---- the cases ----------------------------------------------------------------------------------------------

  /**
   * A search case: `match` must answer exactly the keys `expected` gives (non-empty), `miss` those of `missed` (by
   * default none), and never the first expected key. For PractitionerRole the keys are the clinicians
   * (`PractitionerRole@{id}`): every match must be one the SQL names and `known` must be among them.
   */
  interface SearchCase {
    match: Params
    expected: () => Promise<string[]>
    miss: Params
    missed?: () => Promise<string[]>
    /** PractitionerRole: the clinician that must match */
    known?: () => string
    /**
     * A chain no resource of the type meets in this data (the comment says why): `match` and `miss` answer nothing, and
     * the same value on the target itself answers `expected` (of other kinds than the one referenced): the value is one
     * that matches, the referenced kind never does.
     */
    unmet?: { type: string; params: Params }
  }
  /** An include case: the search `params` must include exactly the `expected` resources (keys as above). */
  interface IncludeCase {
    params: Params
    expected: () => Promise<string[]>
  }

  const like = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  const providers = (where: string, values: readonly unknown[] = []) =>
    sqlKeys(`SELECT 'PractitionerRole@' || t.id AS key FROM providers t WHERE ${where}`, values)
  const networkMembers = (name: string) => providers(`t.aggregated_insurance_networks_v1 ->> $1 = 'true'`, [name])
  const facilities = (prefix: string, where: string, values: unknown[] = [], table = 'facilities t') =>
    sqlKeys(`SELECT '${prefix}fac-' || t.id AS key FROM ${table} WHERE ${where}`, values)
  const affiliated = (where: string, values: unknown[] = []) =>
    facilities('OrganizationAffiliation/', `t.health_system_id IS NOT NULL AND (${where})`, values)
  /** a facility `alias` any of whose address parts (line, city, state, ZIP) starts with $1 */
  const facilityAddress = (alias: string) =>
    `(lower(${alias}.address_line_1) LIKE $1 OR lower(${alias}.city) LIKE $1 OR lower(${alias}.state) LIKE $1 OR ${alias}.zip_code LIKE $1)`
  const sameAddress = `EXISTS (SELECT 1 FROM facilities f WHERE f.id = t.facility_id AND f.address_line_1 = t.address AND f.city = t.city
    AND f.state = t.state AND f.zip_code = t.zip_code)`
  const locations = async (facilityWhere: string, providerWhere: string, values: unknown[] = []) =>
    [
      ...(await facilities('Location/', facilityWhere, values)),
      ...(await sqlKeys(`SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE ${providerWhere}`, values)),
    ].sort()
  const near = (latitude: number, longitude: number, km: number) =>
    locations(
      `ST_DWithin(t.geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, $3)`,
      `ST_DWithin(t.geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, $3)`,
      [latitude, longitude, km * 1000],
    )
  const NOWHERE = '0|-30|1|km' // the middle of the Atlantic
  const npi = (value: string) => `${FHIR_SYSTEMS.npi}|${value}`
  const nucc = (code: string) => `${FHIR_SYSTEMS.nucc}|${code}`
  const orgType = (code: string) => `${FHIR_SYSTEMS.orgType}|${code}`
  const locationType = (code: string) => `${FHIR_SYSTEMS.locationRole}|${code}`
  /** facilities and health systems by any address part (a payer's and a network's address is the country alone) */
  const organizationsAt = async (text: string) =>
    [
      ...(await facilities('Organization/', facilityAddress('t'), [like(text)])),
      ...(await sqlKeys(`SELECT 'Organization/hs-' || id AS key FROM health_systems WHERE lower(city) LIKE $1 OR lower(state) LIKE $1`, [
        like(text),
      ])),
    ].sort()
  const insurers = (where: string, values: unknown[] = []) =>
    sqlKeys(`SELECT 'InsurancePlan/ins-' || t.id AS key FROM insurers t WHERE ${where}`, values)

  /** The clinicians named by a Practitioner criterion, as roles' keys or as Practitioner ids. */
  const byName = {
    name: (text: string) => [`lower(t.first_name) LIKE $1 OR lower(t.last_name) LIKE $1`, [like(text)]] as const,
    family: (text: string) => [`lower(t.last_name) LIKE $1`, [like(text)]] as const,
    given: (text: string) => [`lower(t.first_name) LIKE $1 OR lower(t.middle_name) LIKE $1`, [like(text)]] as const,
  }
  const practitioners = (where: readonly [string, readonly unknown[]]) =>
    sqlKeys(`SELECT 'Practitioner/' || t.id AS key FROM providers t WHERE ${where[0]}`, [...where[1]])

  function searchCases(): Record<string, SearchCase> {
    const { p, f, aetna, small, state, away } = fx
    const atFacility = () => providers('t.facility_id = $1', [f.id])
    /** `partof` the known health system or Aetna (the payer): the system's facilities and Aetna's network */
    const partOf = { partof: `Organization/hs-${f.system},Organization/ins-${aetna.id}` }
    const partOfExpected = async () =>
      [...(await facilities('Organization/', 't.health_system_id = $1', [f.system])), `Organization/net-${aetna.id}`].sort()
    const systemsAt = 'SELECT id FROM health_systems WHERE lower(city) LIKE $1 OR lower(state) LIKE $1'
    return {
      // Practitioner
      'Practitioner _id': { match: { _id: `${p.id}` }, expected: async () => [`Practitioner/${p.id}`], miss: { _id: '999999999' } },
      'Practitioner _lastUpdated': {
        match: { _lastUpdated: `eq${fx.providersAt}` },
        expected: () => sqlKeys(`SELECT 'Practitioner/' || id AS key FROM providers WHERE updated_at = $1`, [fx.providersAt]),
        miss: { _lastUpdated: `lt${fx.providersAt}` },
      },
      'Practitioner name': { match: { name: p.last }, expected: () => practitioners(byName.name(p.last)), miss: { name: 'Zzqxw' } },
      'Practitioner family': {
        match: { family: p.last },
        expected: () => practitioners(byName.family(p.last)),
        miss: { family: p.first + 'qx' },
      },
      'Practitioner given': { match: { given: p.first }, expected: () => practitioners(byName.given(p.first)), miss: { given: 'Zzqxw' } },
      'Practitioner identifier': {
        match: { identifier: npi(p.npi) },
        expected: async () => [`Practitioner/${p.id}`],
        miss: { identifier: npi('0000000000') },
      },
      'Practitioner _has:PractitionerRole:practitioner': {
        match: { '_has:PractitionerRole:practitioner:specialty': nucc(p.taxonomy) },
        expected: () => sqlKeys(`SELECT 'Practitioner/' || t.id AS key FROM providers t WHERE t.primary_taxonomy_code = $1`, [p.taxonomy]),
        miss: { '_has:PractitionerRole:practitioner:specialty': nucc('0000000000X') },
      },

      // PractitionerRole: keyed by clinician
      'PractitionerRole _id': {
        // a role's own id, taken from a search (whatever its form)
        match: { _id: '$ROLE_ID' },
        expected: async () => [role(p.id)],
        miss: { _id: '999999999' },
        known: () => role(p.id),
      },
      'PractitionerRole _lastUpdated': {
        match: { _lastUpdated: `eq${fx.providersAt}` },
        expected: () => providers('t.updated_at = $1', [fx.providersAt]),
        miss: { _lastUpdated: `lt${fx.providersAt}` },
        known: () => role(p.id),
      },
      'PractitionerRole practitioner': {
        match: { practitioner: `Practitioner/${p.id}` },
        expected: async () => [role(p.id)],
        miss: { practitioner: `Practitioner/${away.id}` },
        known: () => role(p.id),
      },
      'PractitionerRole practitioner.name': {
        match: { 'practitioner.name': p.last },
        expected: () => providers(...byName.name(p.last)),
        miss: { 'practitioner.name': 'Zzqxw' },
        known: () => role(p.id),
      },
      'PractitionerRole practitioner.family': {
        match: { 'practitioner.family': p.last },
        expected: () => providers(...byName.family(p.last)),
        miss: { 'practitioner.family': 'Zzqxw' },
        known: () => role(p.id),
      },
      'PractitionerRole practitioner.given': {
        match: { 'practitioner.given': p.first },
        expected: () => providers(...byName.given(p.first)),
        miss: { 'practitioner.given': 'Zzqxw' },
        known: () => role(p.id),
      },
      'PractitionerRole practitioner.identifier': {
        match: { 'practitioner.identifier': npi(p.npi) },
        expected: async () => [role(p.id)],
        miss: { 'practitioner.identifier': npi('0000000000') },
        known: () => role(p.id),
      },
      'PractitionerRole organization': {
        match: { organization: `Organization/fac-${f.id}` },
        expected: atFacility,
        miss: { organization: `Organization/fac-${away.facility === f.id ? 999999999 : away.facility}` },
        known: () => role(p.id),
      },
      'PractitionerRole organization.name': {
        match: { 'organization.name': f.name },
        expected: () => providers('t.facility_id IN (SELECT id FROM facilities WHERE lower(name) LIKE $1)', [like(f.name)]),
        miss: { 'organization.name': 'Zzqxw' },
        known: () => role(p.id),
      },
      'PractitionerRole location': {
        match: { location: `Location/prov-${p.id}` },
        expected: async () => [role(p.id)],
        miss: { location: `Location/prov-${away.id}` },
        known: () => role(p.id),
      },
      'PractitionerRole location.address': {
        match: { 'location.address': p.zip },
        expected: () =>
          providers(`lower(t.address) LIKE $1 OR lower(t.city) LIKE $1 OR lower(t.state) LIKE $1 OR t.zip_code LIKE $1`, [like(p.zip)]),
        miss: { 'location.address': 'Zzqxw' },
        known: () => role(p.id),
      },
      'PractitionerRole location.address-postalcode': {
        match: { 'location.address-postalcode': p.zip },
        expected: () => providers('t.zip_code LIKE $1', [like(p.zip)]),
        miss: { 'location.address-postalcode': '00000' },
        known: () => role(p.id),
      },
      'PractitionerRole location.address-city': {
        match: { 'location.address-city': p.city },
        expected: () => providers('lower(t.city) LIKE $1', [like(p.city)]),
        miss: { 'location.address-city': 'Zzqxw' },
        known: () => role(p.id),
      },
      'PractitionerRole location.address-state': {
        match: { 'location.address-state': state.code },
        expected: () => providers('t.state = $1', [state.code]),
        miss: { 'location.address-state': 'ZZ' },
        known: () => role(state.clinician),
      },
      'PractitionerRole location.near': {
        match: { 'location.near': `${p.lat}|${p.lon}|1|km` },
        expected: () => providers(`ST_DWithin(t.geog, ST_SetSRID(ST_MakePoint($2, $1), 4326)::geography, 1000)`, [p.lat, p.lon]),
        miss: { 'location.near': NOWHERE },
        known: () => role(p.id),
      },
      'PractitionerRole network': {
        match: { network: `Organization/net-${small.id}` },
        expected: () => networkMembers(small.name),
        miss: { network: 'Organization/net-999999999' },
        known: () => 'first',
      },
      'PractitionerRole network.name': {
        match: { 'network.name': `${small.name} Network` },
        expected: () => networkMembers(small.name),
        miss: { 'network.name': 'Zzqxw' },
        known: () => 'first',
      },
      'PractitionerRole role': {
        match: { role: `${FHIR_SYSTEMS.providerRole}|pa` },
        expected: () => providers(`t.provider_kind = 'physician_assistant'`),
        // a ProviderRoleCS code no clinician of the dataset has
        miss: { role: `${FHIR_SYSTEMS.providerRole}|ems` },
        known: () => role(p.id),
      },
      'PractitionerRole specialty': {
        match: { specialty: `${FHIR_SYSTEMS.nucc}|${p.taxonomy}` },
        expected: () => providers('t.primary_taxonomy_code = $1', [p.taxonomy]),
        miss: { specialty: `${FHIR_SYSTEMS.nucc}|0000000000X` },
        known: () => role(p.id),
      },
      'PractitionerRole new-patients': {
        match: { 'new-patients': `${FHIR_SYSTEMS.acceptingPatients}|nopt` },
        expected: () => providers('NOT t.accepting_new_patients'),
        miss: { 'new-patients': `${FHIR_SYSTEMS.acceptingPatients}|newpt` },
        known: () => 'first',
      },
      'PractitionerRole organization.address': {
        match: { 'organization.address': f.city },
        expected: () => providers(`t.facility_id IN (SELECT f.id FROM facilities f WHERE ${facilityAddress('f')})`, [like(f.city)]),
        miss: { 'organization.address': 'Zzqxw' },
        known: () => role(p.id),
      },
      'PractitionerRole organization.partof': {
        match: { 'organization.partof': `Organization/hs-${f.system}` },
        expected: () => providers('t.facility_id IN (SELECT id FROM facilities WHERE health_system_id = $1)', [f.system]),
        miss: { 'organization.partof': 'Organization/hs-999999999' },
        known: () => role(p.id),
      },
      'PractitionerRole organization.type': {
        // a role's organization is a facility; a clinician without one has none
        match: { 'organization.type': orgType('fac') },
        expected: () => providers('t.facility_id IN (SELECT id FROM facilities)'),
        miss: { 'organization.type': orgType('ntwk') },
        known: () => role(p.id),
      },
      'PractitionerRole location.organization': {
        // a practice's managing organization is its clinician's facility
        match: { 'location.organization': `Organization/fac-${f.id}` },
        expected: atFacility,
        miss: { 'location.organization': 'Organization/fac-999999999' },
        known: () => role(p.id),
      },
      'PractitionerRole location.type': {
        // every practice is a provider's office
        match: { 'location.type': locationType('PROFF') },
        expected: () => providers('TRUE'),
        miss: { 'location.type': locationType('HOSP') },
        known: () => role(p.id),
      },
      'PractitionerRole network.address': {
        // a network's address is the country alone (the insurers hold no office address): a city matches facilities and
        // health systems, never a network
        match: { 'network.address': f.city },
        expected: () => organizationsAt(f.city),
        miss: { 'network.address': 'US' },
        unmet: { type: 'Organization', params: { address: f.city } },
      },
      'PractitionerRole network.partof': {
        match: { 'network.partof': `Organization/ins-${small.id}` },
        expected: () => networkMembers(small.name),
        // a network is part of its payer, never of a health system
        miss: { 'network.partof': `Organization/hs-${f.system}` },
        known: () => 'first',
      },
      'PractitionerRole network.type': {
        match: { 'network.type': orgType('ntwk') },
        expected: () => providers(NETWORKED),
        miss: { 'network.type': orgType('payer') },
        known: () => role(p.id),
      },

      // Organization: facilities (fac-), health systems (hs-), payers (ins-) and networks (net-)
      'Organization _id': {
        match: { _id: `fac-${f.id},hs-${f.system},ins-${aetna.id},net-${aetna.id}` },
        expected: async () =>
          [
            `Organization/fac-${f.id}`,
            `Organization/hs-${f.system}`,
            `Organization/ins-${aetna.id}`,
            `Organization/net-${aetna.id}`,
          ].sort(),
        miss: { _id: 'fac-999999999,hs-999999999' },
      },
      'Organization _lastUpdated': {
        // the facilities' own time, not the load time of the others
        match: { _lastUpdated: `eq${fx.facilitiesAt}` },
        expected: () => facilities('Organization/', 't.updated_at = $1', [fx.facilitiesAt]),
        miss: { _lastUpdated: `lt${fx.facilitiesAt}` },
      },
      'Organization name': {
        match: { name: f.name },
        expected: async () =>
          [
            ...(await facilities('Organization/', 'lower(t.name) LIKE $1', [like(f.name)])),
            ...(await sqlKeys(`SELECT 'Organization/hs-' || id AS key FROM health_systems WHERE lower(name) LIKE $1`, [like(f.name)])),
            ...(await sqlKeys(`SELECT 'Organization/ins-' || id AS key FROM insurers WHERE lower(name) LIKE $1`, [like(f.name)])),
            ...(await sqlKeys(`SELECT 'Organization/net-' || id AS key FROM insurers WHERE lower(name || ' Network') LIKE $1`, [
              like(f.name),
            ])),
          ].sort(),
        miss: { name: 'Zzqxw' },
      },
      'Organization address': { match: { address: f.city }, expected: () => organizationsAt(f.city), miss: { address: 'Zzqxw' } },
      'Organization type': {
        match: { type: `${FHIR_SYSTEMS.orgType}|payer` },
        expected: () => sqlKeys(`SELECT 'Organization/ins-' || id AS key FROM insurers`),
        // an OrgTypeCS code no organization here has
        miss: { type: `${FHIR_SYSTEMS.orgType}|atyprv` },
      },
      'Organization partof': { match: partOf, expected: partOfExpected, miss: { partof: `Organization/fac-${f.id}` } },
      'Organization partof.name': {
        match: { 'partof.name': f.systemName },
        expected: async () =>
          [
            ...(await facilities('Organization/', 't.health_system_id IN (SELECT id FROM health_systems WHERE lower(name) LIKE $1)', [
              like(f.systemName),
            ])),
            ...(await sqlKeys(`SELECT 'Organization/net-' || id AS key FROM insurers WHERE lower(name) LIKE $1`, [like(f.systemName)])),
          ].sort(),
        miss: { 'partof.name': 'Zzqxw' },
      },
      'Organization identifier': {
        match: { identifier: npi(f.npi) },
        expected: () => facilities('Organization/', 't.npi = $1', [f.npi]),
        miss: { identifier: npi('0000000000') },
      },
      'Organization partof.address': {
        // facilities by their health system's city or state; a network's payer has the country alone
        match: { 'partof.address': f.systemCity },
        expected: () => facilities('Organization/', `t.health_system_id IN (${systemsAt})`, [like(f.systemCity)]),
        miss: { 'partof.address': 'Zzqxw' },
      },
      'Organization partof.type': {
        // a facility is part of a provider group (its health system), a network of its payer
        match: { 'partof.type': `${orgType('prvgrp')},${orgType('payer')}` },
        expected: async () =>
          [
            ...(await facilities('Organization/', 't.health_system_id IS NOT NULL')),
            ...(await sqlKeys(`SELECT 'Organization/net-' || id AS key FROM insurers`)),
          ].sort(),
        // nothing is part of a facility
        miss: { 'partof.type': orgType('fac') },
      },
      'Organization _has:PractitionerRole:organization': {
        // the facilities of the clinicians of a specialty
        match: { '_has:PractitionerRole:organization:specialty': nucc(p.taxonomy) },
        expected: () =>
          facilities('Organization/', 't.id IN (SELECT facility_id FROM providers WHERE primary_taxonomy_code = $1)', [p.taxonomy]),
        miss: { '_has:PractitionerRole:organization:specialty': nucc('0000000000X') },
      },
      'Organization _has:PractitionerRole:network': {
        // the networks of the known clinician
        match: { '_has:PractitionerRole:network:practitioner.identifier': npi(p.npi) },
        expected: () =>
          sqlKeys(
            `SELECT 'Organization/net-' || i.id AS key FROM providers t, insurers i WHERE t.npi = $1 AND t.aggregated_insurance_networks_v1 ->> i.name = 'true'`,
            [p.npi],
          ),
        miss: { '_has:PractitionerRole:network:practitioner.identifier': npi('0000000000') },
      },
      'Organization _has:Organization:partof': {
        // the health systems of the facilities of the name, and Aetna, the payer of "Aetna Network"
        match: { '_has:Organization:partof:name': `${f.name},Aetna Network` },
        expected: async () =>
          [
            ...(await sqlKeys(
              `SELECT DISTINCT 'Organization/hs-' || health_system_id AS key FROM facilities WHERE health_system_id IS NOT NULL
                AND (lower(name) LIKE $1 OR lower(name) LIKE $2)`,
              [like(f.name), like('Aetna Network')],
            )),
            ...(await sqlKeys(
              `SELECT 'Organization/ins-' || id AS key FROM insurers WHERE lower(name || ' Network') LIKE $1 OR lower(name || ' Network') LIKE $2`,
              [like(f.name), like('Aetna Network')],
            )),
          ].sort(),
        miss: { '_has:Organization:partof:name': 'Zzqxw' },
      },
      'Organization _has:Location:organization': {
        // the facilities whose own location, or a practice of one of whose clinicians, is in the city
        match: { '_has:Location:organization:address-city': p.city },
        expected: () =>
          facilities('Organization/', 'lower(t.city) LIKE $1 OR t.id IN (SELECT facility_id FROM providers WHERE lower(city) LIKE $1)', [
            like(p.city),
          ]),
        miss: { '_has:Location:organization:address-city': 'Zzqxw' },
      },
      'Organization _has:HealthcareService:organization': {
        match: { '_has:HealthcareService:organization:service-category': `${FHIR_SYSTEMS.serviceCategory}|urg` },
        expected: () => facilities('Organization/', `t.facility_type = 'urgent_care'`),
        miss: { '_has:HealthcareService:organization:service-category': `${FHIR_SYSTEMS.serviceCategory}|emerg` },
      },
      'Organization _has:OrganizationAffiliation:primary-organization': {
        // the health systems with a facility of the specialty
        match: { '_has:OrganizationAffiliation:primary-organization:specialty': nucc(f.taxonomy) },
        expected: () =>
          sqlKeys(
            `SELECT DISTINCT 'Organization/hs-' || health_system_id AS key FROM facilities WHERE health_system_id IS NOT NULL AND taxonomy_code = $1`,
            [f.taxonomy],
          ),
        miss: { '_has:OrganizationAffiliation:primary-organization:specialty': nucc('0000000000X') },
      },
      'Organization _has:OrganizationAffiliation:participating-organization': {
        // the hospitals of a health system
        match: { '_has:OrganizationAffiliation:participating-organization:role': `${FHIR_SYSTEMS.affiliationRole}|hospital` },
        expected: () =>
          facilities('Organization/', `t.health_system_id IS NOT NULL AND t.facility_type IN ('hospital', 'critical_access')`),
        miss: { '_has:OrganizationAffiliation:participating-organization:role': `${FHIR_SYSTEMS.affiliationRole}|pharmacy` },
      },
      'Organization _has:InsurancePlan:administered-by': {
        match: { '_has:InsurancePlan:administered-by:type': `${FHIR_SYSTEMS.productType}|medi` },
        expected: () => sqlKeys(`SELECT 'Organization/ins-' || id AS key FROM insurers WHERE kind = 'medicaid'`),
        miss: { '_has:InsurancePlan:administered-by:type': `${FHIR_SYSTEMS.productType}|qdent` },
      },
      'Organization _has:InsurancePlan:owned-by': {
        match: { '_has:InsurancePlan:owned-by:name': 'Blue Cross' },
        expected: () => sqlKeys(`SELECT 'Organization/ins-' || id AS key FROM insurers WHERE lower(name) LIKE $1`, [like('Blue Cross')]),
        miss: { '_has:InsurancePlan:owned-by:name': 'Zzqxw' },
      },

      // Location: facilities (fac-) and clinicians' practices (prov-)
      'Location _id': {
        match: { _id: `fac-${f.id},prov-${p.id}` },
        expected: async () => [`Location/fac-${f.id}`, `Location/prov-${p.id}`].sort(),
        miss: { _id: 'prov-999999999' },
      },
      'Location _lastUpdated': {
        match: { _lastUpdated: `eq${fx.providersAt}` },
        expected: () => locations('t.updated_at = $1', 't.updated_at = $1', [fx.providersAt]),
        miss: { _lastUpdated: 'lt2000-01-01' },
      },
      'Location address': {
        match: { address: p.city },
        expected: () =>
          locations(
            'lower(t.address_line_1) LIKE $1 OR lower(t.city) LIKE $1 OR lower(t.state) LIKE $1 OR t.zip_code LIKE $1',
            'lower(t.address) LIKE $1 OR lower(t.city) LIKE $1 OR lower(t.state) LIKE $1 OR t.zip_code LIKE $1',
            [like(p.city)],
          ),
        miss: { address: 'Zzqxw' },
      },
      'Location address-city': {
        match: { 'address-city': p.city },
        expected: () => locations('lower(t.city) LIKE $1', 'lower(t.city) LIKE $1', [like(p.city)]),
        miss: { 'address-city': 'Zzqxw' },
      },
      'Location address-state': {
        match: { 'address-state': state.code },
        expected: () => locations('t.state = $1', 't.state = $1', [state.code]),
        miss: { 'address-state': 'ZZ' },
      },
      'Location address-postalcode': {
        match: { 'address-postalcode': p.zip },
        expected: () => locations('t.zip_code LIKE $1', 't.zip_code LIKE $1', [like(p.zip)]),
        miss: { 'address-postalcode': '00000' },
      },
      'Location organization': {
        match: { organization: `Organization/fac-${f.id}` },
        expected: () => locations('t.id = $1', 't.facility_id = $1', [f.id]),
        miss: { organization: 'Organization/fac-999999999' },
      },
      'Location organization.name': {
        match: { 'organization.name': f.name },
        expected: () =>
          locations('lower(t.name) LIKE $1', 't.facility_id IN (SELECT id FROM facilities WHERE lower(name) LIKE $1)', [like(f.name)]),
        miss: { 'organization.name': 'Zzqxw' },
      },
      'Location type': {
        match: { type: `${FHIR_SYSTEMS.locationRole}|HOSP` },
        expected: () => facilities('Location/', `t.facility_type IN ('hospital', 'critical_access')`),
        // a v3 RoleCode no location here has
        miss: { type: `${FHIR_SYSTEMS.locationRole}|ER` },
      },
      'Location near': { match: { near: `${f.lat}|${f.lon}|1|km` }, expected: () => near(f.lat, f.lon, 1), miss: { near: NOWHERE } },
      'Location partof': {
        match: { partof: `Location/fac-${f.id}` },
        expected: () =>
          sqlKeys(`SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE t.facility_id = $1 AND ${sameAddress}`, [f.id]),
        // a facility's location is part of none, nor is a practice elsewhere part of its facility's
        miss: { partof: `Location/fac-${away.facility},Location/prov-${p.id}` },
        missed: () =>
          sqlKeys(`SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE t.facility_id = $1 AND ${sameAddress}`, [away.facility]),
      },
      'Location organization.address': {
        match: { 'organization.address': f.city },
        expected: () =>
          locations(facilityAddress('t'), `t.facility_id IN (SELECT f.id FROM facilities f WHERE ${facilityAddress('f')})`, [like(f.city)]),
        miss: { 'organization.address': 'Zzqxw' },
      },
      'Location organization.partof': {
        match: { 'organization.partof': `Organization/hs-${f.system}` },
        expected: () =>
          locations('t.health_system_id = $1', 't.facility_id IN (SELECT id FROM facilities WHERE health_system_id = $1)', [f.system]),
        miss: { 'organization.partof': 'Organization/hs-999999999' },
      },
      'Location organization.type': {
        // every facility's location, and the practices of the clinicians with a facility
        match: { 'organization.type': orgType('fac') },
        expected: () => locations('TRUE', 't.facility_id IN (SELECT id FROM facilities)'),
        miss: { 'organization.type': orgType('payer') },
      },
      'Location partof.address': {
        // the practices at their facility's address, by it (a facility's location is part of none)
        match: { 'partof.address': f.city },
        expected: () =>
          sqlKeys(
            `SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE ${sameAddress}
              AND t.facility_id IN (SELECT f.id FROM facilities f WHERE ${facilityAddress('f')})`,
            [like(f.city)],
          ),
        miss: { 'partof.address': 'Zzqxw' },
      },
      'Location partof.organization': {
        match: { 'partof.organization': `Organization/fac-${f.id}` },
        expected: () =>
          sqlKeys(`SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE t.facility_id = $1 AND ${sameAddress}`, [f.id]),
        miss: { 'partof.organization': 'Organization/fac-999999999' },
      },
      'Location partof.type': {
        match: { 'partof.type': locationType('HOSP') },
        expected: () =>
          sqlKeys(
            `SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE ${sameAddress}
              AND t.facility_id IN (SELECT id FROM facilities WHERE facility_type IN ('hospital', 'critical_access'))`,
          ),
        // a practice is part of a facility's location, never of another practice
        miss: { 'partof.type': locationType('PROFF') },
      },
      'Location _has:PractitionerRole:location': {
        // the practices of the clinicians of a specialty
        match: { '_has:PractitionerRole:location:specialty': nucc(p.taxonomy) },
        expected: () => sqlKeys(`SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE t.primary_taxonomy_code = $1`, [p.taxonomy]),
        miss: { '_has:PractitionerRole:location:specialty': nucc('0000000000X') },
      },
      'Location _has:Location:partof': {
        // the facility locations a practice in the ZIP code is part of (at the same address)
        match: { '_has:Location:partof:address-postalcode': p.zip },
        expected: () =>
          sqlKeys(`SELECT DISTINCT 'Location/fac-' || t.facility_id AS key FROM providers t WHERE t.zip_code LIKE $1 AND ${sameAddress}`, [
            like(p.zip),
          ]),
        miss: { '_has:Location:partof:address-postalcode': '00000' },
      },
      'Location _has:HealthcareService:location': {
        match: { '_has:HealthcareService:location:service-category': `${FHIR_SYSTEMS.serviceCategory}|urg` },
        expected: () => facilities('Location/', `t.facility_type = 'urgent_care'`),
        miss: { '_has:HealthcareService:location:service-category': `${FHIR_SYSTEMS.serviceCategory}|emerg` },
      },
      'Location _has:OrganizationAffiliation:location': {
        match: { '_has:OrganizationAffiliation:location:primary-organization': `Organization/hs-${f.system}` },
        expected: () => facilities('Location/', 't.health_system_id = $1', [f.system]),
        // the primary organization is a health system, never a facility
        miss: { '_has:OrganizationAffiliation:location:primary-organization': `Organization/fac-${f.id}` },
      },

      // HealthcareService: a facility's services (fac-)
      'HealthcareService _id': {
        match: { _id: `fac-${f.id}` },
        expected: async () => [`HealthcareService/fac-${f.id}`],
        miss: { _id: 'prov-1' },
      },
      'HealthcareService _lastUpdated': {
        match: { _lastUpdated: `eq${fx.facilitiesAt}` },
        expected: () => facilities('HealthcareService/', 't.updated_at = $1', [fx.facilitiesAt]),
        // facilities other files' tests added after the dataset loaded are later; the SQL names them
        miss: { _lastUpdated: `gt${fx.facilitiesAt}` },
        missed: () => facilities('HealthcareService/', 't.updated_at > $1', [fx.facilitiesAt]),
      },
      'HealthcareService name': {
        match: { name: f.name },
        expected: () => facilities('HealthcareService/', 'lower(t.name) LIKE $1', [like(f.name)]),
        miss: { name: 'Zzqxw' },
      },
      'HealthcareService organization': {
        match: { organization: `Organization/fac-${f.id}` },
        expected: async () => [`HealthcareService/fac-${f.id}`],
        miss: { organization: `Organization/hs-${f.system}` },
      },
      'HealthcareService organization.name': {
        match: { 'organization.name': f.name },
        expected: () => facilities('HealthcareService/', 'lower(t.name) LIKE $1', [like(f.name)]),
        miss: { 'organization.name': 'Zzqxw' },
      },
      'HealthcareService location': {
        match: { location: `Location/fac-${f.id}` },
        expected: async () => [`HealthcareService/fac-${f.id}`],
        miss: { location: `Location/prov-${p.id}` },
      },
      'HealthcareService service-category': {
        match: { 'service-category': `${FHIR_SYSTEMS.serviceCategory}|urg` },
        expected: () => facilities('HealthcareService/', `t.facility_type = 'urgent_care'`),
        // a HealthcareServiceCategoryCS code no facility here has
        miss: { 'service-category': `${FHIR_SYSTEMS.serviceCategory}|emerg` },
      },
      'HealthcareService specialty': {
        match: { specialty: `${FHIR_SYSTEMS.nucc}|${f.taxonomy}` },
        expected: () => facilities('HealthcareService/', 't.taxonomy_code = $1', [f.taxonomy]),
        miss: { specialty: `${FHIR_SYSTEMS.nucc}|0000000000X` },
      },
      'HealthcareService organization.address': {
        match: { 'organization.address': f.city },
        expected: () => facilities('HealthcareService/', facilityAddress('t'), [like(f.city)]),
        miss: { 'organization.address': 'Zzqxw' },
      },
      'HealthcareService organization.partof': {
        match: { 'organization.partof': `Organization/hs-${f.system}` },
        expected: () => facilities('HealthcareService/', 't.health_system_id = $1', [f.system]),
        miss: { 'organization.partof': 'Organization/hs-999999999' },
      },
      'HealthcareService organization.type': {
        match: { 'organization.type': orgType('fac') },
        expected: () => facilities('HealthcareService/', 'TRUE'),
        miss: { 'organization.type': orgType('ntwk') },
      },
      'HealthcareService location.address': {
        match: { 'location.address': f.city },
        expected: () => facilities('HealthcareService/', facilityAddress('t'), [like(f.city)]),
        miss: { 'location.address': 'Zzqxw' },
      },
      'HealthcareService location.address-city': {
        match: { 'location.address-city': f.city },
        expected: () => facilities('HealthcareService/', 'lower(t.city) LIKE $1', [like(f.city)]),
        miss: { 'location.address-city': 'Zzqxw' },
      },
      'HealthcareService location.address-postalcode': {
        match: { 'location.address-postalcode': f.zip },
        expected: () => facilities('HealthcareService/', 't.zip_code LIKE $1', [like(f.zip)]),
        miss: { 'location.address-postalcode': '00000' },
      },
      'HealthcareService location.address-state': {
        match: { 'location.address-state': f.state },
        expected: () => facilities('HealthcareService/', 't.state = $1', [f.state]),
        miss: { 'location.address-state': 'ZZ' },
      },
      'HealthcareService location.organization': {
        match: { 'location.organization': `Organization/fac-${f.id}` },
        expected: async () => [`HealthcareService/fac-${f.id}`],
        miss: { 'location.organization': `Organization/hs-${f.system}` },
      },
      'HealthcareService location.type': {
        match: { 'location.type': locationType('HOSP') },
        expected: () => facilities('HealthcareService/', `t.facility_type IN ('hospital', 'critical_access')`),
        // a facility's location is never a provider's office
        miss: { 'location.type': locationType('PROFF') },
      },
      'HealthcareService _has:OrganizationAffiliation:service': {
        // the services of the facilities of a health system
        match: { '_has:OrganizationAffiliation:service:primary-organization': `Organization/hs-${f.system}` },
        expected: () => facilities('HealthcareService/', 't.health_system_id = $1', [f.system]),
        miss: { '_has:OrganizationAffiliation:service:primary-organization': 'Organization/hs-999999999' },
      },

      // OrganizationAffiliation: a facility in its health system (fac-)
      'OrganizationAffiliation _id': {
        match: { _id: `fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
        miss: { _id: 'fac-999999999' },
      },
      'OrganizationAffiliation _lastUpdated': {
        match: { _lastUpdated: `eq${fx.facilitiesAt}` },
        expected: () => affiliated('t.updated_at = $1', [fx.facilitiesAt]),
        miss: { _lastUpdated: `lt${fx.facilitiesAt}` },
      },
      'OrganizationAffiliation primary-organization': {
        match: { 'primary-organization': `Organization/hs-${f.system}` },
        expected: () => affiliated('t.health_system_id = $1', [f.system]),
        miss: { 'primary-organization': `Organization/fac-${f.id}` },
      },
      'OrganizationAffiliation primary-organization.name': {
        match: { 'primary-organization.name': f.systemName },
        expected: () => affiliated('t.health_system_id IN (SELECT id FROM health_systems WHERE lower(name) LIKE $1)', [like(f.systemName)]),
        miss: { 'primary-organization.name': 'Zzqxw' },
      },
      'OrganizationAffiliation participating-organization': {
        match: { 'participating-organization': `Organization/fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
        miss: { 'participating-organization': `Organization/hs-${f.system}` },
      },
      'OrganizationAffiliation participating-organization.name': {
        match: { 'participating-organization.name': f.name },
        expected: () => affiliated('lower(t.name) LIKE $1', [like(f.name)]),
        miss: { 'participating-organization.name': 'Zzqxw' },
      },
      'OrganizationAffiliation location': {
        match: { location: `Location/fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
        miss: { location: `Location/prov-${p.id}` },
      },
      'OrganizationAffiliation service': {
        match: { service: `HealthcareService/fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
        miss: { service: 'HealthcareService/fac-999999999' },
      },
      'OrganizationAffiliation role': {
        match: { role: `${FHIR_SYSTEMS.affiliationRole}|hospital` },
        expected: () => affiliated(`t.facility_type IN ('hospital', 'critical_access')`),
        // an OrganizationAffiliationRoleCS code no affiliation here has
        miss: { role: `${FHIR_SYSTEMS.affiliationRole}|pharmacy` },
      },
      'OrganizationAffiliation specialty': {
        match: { specialty: `${FHIR_SYSTEMS.nucc}|${f.taxonomy}` },
        expected: () => affiliated('t.taxonomy_code = $1', [f.taxonomy]),
        miss: { specialty: `${FHIR_SYSTEMS.nucc}|0000000000X` },
      },
      'OrganizationAffiliation primary-organization.address': {
        match: { 'primary-organization.address': f.systemCity },
        expected: () => affiliated(`t.health_system_id IN (${systemsAt})`, [like(f.systemCity)]),
        miss: { 'primary-organization.address': 'Zzqxw' },
      },
      'OrganizationAffiliation primary-organization.partof': {
        // a health system is part of no organization: the value matches facilities and a network, never a health system
        match: { 'primary-organization.partof': partOf.partof },
        expected: partOfExpected,
        miss: { 'primary-organization.partof': 'Organization/hs-999999999' },
        unmet: { type: 'Organization', params: partOf },
      },
      'OrganizationAffiliation primary-organization.type': {
        match: { 'primary-organization.type': orgType('prvgrp') },
        expected: () => affiliated('TRUE'),
        miss: { 'primary-organization.type': orgType('fac') },
      },
      'OrganizationAffiliation participating-organization.address': {
        match: { 'participating-organization.address': f.city },
        expected: () => affiliated(facilityAddress('t'), [like(f.city)]),
        miss: { 'participating-organization.address': 'Zzqxw' },
      },
      'OrganizationAffiliation participating-organization.partof': {
        match: { 'participating-organization.partof': `Organization/hs-${f.system}` },
        expected: () => affiliated('t.health_system_id = $1', [f.system]),
        miss: { 'participating-organization.partof': 'Organization/hs-999999999' },
      },
      'OrganizationAffiliation participating-organization.type': {
        match: { 'participating-organization.type': orgType('fac') },
        expected: () => affiliated('TRUE'),
        miss: { 'participating-organization.type': orgType('prvgrp') },
      },
      'OrganizationAffiliation location.address': {
        match: { 'location.address': f.city },
        expected: () => affiliated(facilityAddress('t'), [like(f.city)]),
        miss: { 'location.address': 'Zzqxw' },
      },
      'OrganizationAffiliation location.address-city': {
        match: { 'location.address-city': f.city },
        expected: () => affiliated('lower(t.city) LIKE $1', [like(f.city)]),
        miss: { 'location.address-city': 'Zzqxw' },
      },
      'OrganizationAffiliation location.address-postalcode': {
        match: { 'location.address-postalcode': f.zip },
        expected: () => affiliated('t.zip_code LIKE $1', [like(f.zip)]),
        miss: { 'location.address-postalcode': '00000' },
      },
      'OrganizationAffiliation location.address-state': {
        match: { 'location.address-state': f.state },
        expected: () => affiliated('t.state = $1', [f.state]),
        miss: { 'location.address-state': 'ZZ' },
      },
      'OrganizationAffiliation location.organization': {
        match: { 'location.organization': `Organization/fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
        miss: { 'location.organization': `Organization/hs-${f.system}` },
      },
      'OrganizationAffiliation location.type': {
        match: { 'location.type': locationType('HOSP') },
        expected: () => affiliated(`t.facility_type IN ('hospital', 'critical_access')`),
        miss: { 'location.type': locationType('PROFF') },
      },
      'OrganizationAffiliation service.organization': {
        match: { 'service.organization': `Organization/fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
        miss: { 'service.organization': `Organization/hs-${f.system}` },
      },
      'OrganizationAffiliation service.location': {
        match: { 'service.location': `Location/fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
        miss: { 'service.location': `Location/prov-${p.id}` },
      },
      'OrganizationAffiliation service.service-category': {
        match: { 'service.service-category': `${FHIR_SYSTEMS.serviceCategory}|urg` },
        expected: () => affiliated(`t.facility_type = 'urgent_care'`),
        miss: { 'service.service-category': `${FHIR_SYSTEMS.serviceCategory}|emerg` },
      },

      // InsurancePlan: an insurer's product (ins-); its time is the data load's
      'InsurancePlan _id': {
        match: { _id: `ins-${aetna.id}` },
        expected: async () => [`InsurancePlan/ins-${aetna.id}`],
        miss: { _id: `net-${aetna.id}` },
      },
      'InsurancePlan _lastUpdated': {
        match: { _lastUpdated: `eq${fx.loadedAt}` },
        expected: () => insurers('TRUE'),
        miss: { _lastUpdated: `lt${fx.loadedAt}` },
      },
      'InsurancePlan administered-by': {
        match: { 'administered-by': `Organization/ins-${aetna.id}` },
        expected: async () => [`InsurancePlan/ins-${aetna.id}`],
        miss: { 'administered-by': `Organization/net-${aetna.id}` },
      },
      'InsurancePlan administered-by.name': {
        match: { 'administered-by.name': 'aetna' },
        expected: () => insurers('lower(t.name) LIKE $1', [like('aetna')]),
        miss: { 'administered-by.name': 'Zzqxw' },
      },
      'InsurancePlan owned-by': {
        match: { 'owned-by': `Organization/ins-${aetna.id}` },
        expected: async () => [`InsurancePlan/ins-${aetna.id}`],
        miss: { 'owned-by': 'Organization/ins-999999999' },
      },
      'InsurancePlan owned-by.name': {
        match: { 'owned-by.name': 'aetna' },
        expected: () => insurers('lower(t.name) LIKE $1', [like('aetna')]),
        miss: { 'owned-by.name': 'Zzqxw' },
      },
      'InsurancePlan name': {
        match: { name: 'Blue Cross' },
        expected: () => insurers('lower(t.name) LIKE $1', [like('Blue Cross')]),
        miss: { name: 'Zzqxw' },
      },
      'InsurancePlan type': {
        match: { type: `${FHIR_SYSTEMS.productType}|medi` },
        expected: () => insurers(`t.kind = 'medicaid'`),
        miss: { type: `${FHIR_SYSTEMS.productType}|qdent` },
      },
      'InsurancePlan plan-type': {
        // the commercial and Blue designs include the HDHP ($3,200) and a $2,500 PPO; Medicare, Medicaid, TRICARE none
        match: { 'plan-type': `${FHIR_SYSTEMS.planType}|highdeductible` },
        expected: () => insurers(`t.kind IN ('commercial', 'blues')`),
        miss: { 'plan-type': `${FHIR_SYSTEMS.planType}|platinum` },
      },
      'InsurancePlan administered-by.partof': {
        // a payer is part of no organization: the value matches facilities and a network, never a payer
        match: { 'administered-by.partof': partOf.partof },
        expected: partOfExpected,
        miss: { 'administered-by.partof': `Organization/ins-${aetna.id}` },
        unmet: { type: 'Organization', params: partOf },
      },
      'InsurancePlan owned-by.partof': {
        // as administered-by: the payer
        match: { 'owned-by.partof': partOf.partof },
        expected: partOfExpected,
        miss: { 'owned-by.partof': `Organization/ins-${aetna.id}` },
        unmet: { type: 'Organization', params: partOf },
      },
    }
  }

  function includeCases(): Record<string, IncludeCase> {
    const { p, f, aetna, small, away } = fx
    return {
      'Practitioner _revinclude=PractitionerRole:practitioner': {
        params: { _id: `${p.id}` },
        expected: async () => [role(p.id)],
      },
      'PractitionerRole _include=PractitionerRole:practitioner': {
        params: { practitioner: `Practitioner/${p.id}` },
        expected: async () => [`Practitioner/${p.id}`],
      },
      'PractitionerRole _include=PractitionerRole:organization': {
        params: { practitioner: `Practitioner/${p.id}` },
        expected: async () => [`Organization/fac-${f.id}`],
      },
      'PractitionerRole _include=PractitionerRole:location': {
        params: { practitioner: `Practitioner/${p.id}` },
        expected: async () => [`Location/prov-${p.id}`],
      },
      'PractitionerRole _include=PractitionerRole:network': {
        params: { practitioner: `Practitioner/${p.id}` },
        expected: () =>
          sqlKeys(
            `SELECT 'Organization/net-' || i.id AS key FROM providers t, insurers i WHERE t.id = $1 AND t.aggregated_insurance_networks_v1 ->> i.name = 'true'`,
            [p.id],
          ),
      },
      'Organization _include=Organization:partof': {
        params: { _id: `fac-${f.id},net-${aetna.id}` },
        expected: async () => [`Organization/hs-${f.system}`, `Organization/ins-${aetna.id}`].sort(),
      },
      'Organization _revinclude=PractitionerRole:organization': {
        params: { _id: `fac-${f.id}` },
        expected: () => providers('t.facility_id = $1', [f.id]),
      },
      'Organization _revinclude=PractitionerRole:network': {
        params: { _id: `net-${small.id}` },
        expected: () => networkMembers(small.name),
      },
      'Organization _revinclude=HealthcareService:organization': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`HealthcareService/fac-${f.id}`],
      },
      'Organization _revinclude=InsurancePlan:administered-by': {
        params: { _id: `ins-${aetna.id}` },
        expected: async () => [`InsurancePlan/ins-${aetna.id}`],
      },
      'Organization _revinclude=InsurancePlan:owned-by': {
        params: { _id: `ins-${aetna.id}` },
        expected: async () => [`InsurancePlan/ins-${aetna.id}`],
      },
      'Organization _revinclude=OrganizationAffiliation:primary-organization': {
        params: { _id: `hs-${f.system}` },
        expected: () => affiliated('t.health_system_id = $1', [f.system]),
      },
      'Organization _revinclude=OrganizationAffiliation:participating-organization': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
      },
      'Location _include=Location:organization': {
        params: { _id: `prov-${p.id},prov-${away.id}` },
        expected: async () => [...new Set([`Organization/fac-${f.id}`, `Organization/fac-${away.facility}`])].sort(),
      },
      'Location _include=Location:partof': {
        // the practice at its facility's address is part of the facility's location; the one elsewhere of none
        params: { _id: `prov-${p.id},prov-${away.id}` },
        expected: async () => [`Location/fac-${f.id}`],
      },
      'Location _revinclude=PractitionerRole:location': {
        params: { _id: `prov-${p.id}` },
        expected: async () => [role(p.id)],
      },
      'Location _revinclude=HealthcareService:location': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`HealthcareService/fac-${f.id}`],
      },
      'Location _revinclude=OrganizationAffiliation:location': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
      },
      'HealthcareService _include=HealthcareService:location': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`Location/fac-${f.id}`],
      },
      'HealthcareService _include=HealthcareService:organization': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`Organization/fac-${f.id}`],
      },
      'HealthcareService _revinclude=OrganizationAffiliation:service': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`OrganizationAffiliation/fac-${f.id}`],
      },
      'OrganizationAffiliation _include=OrganizationAffiliation:primary-organization': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`Organization/hs-${f.system}`],
      },
      'OrganizationAffiliation _include=OrganizationAffiliation:participating-organization': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`Organization/fac-${f.id}`],
      },
      'OrganizationAffiliation _include=OrganizationAffiliation:location': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`Location/fac-${f.id}`],
      },
      'OrganizationAffiliation _include=OrganizationAffiliation:service': {
        params: { _id: `fac-${f.id}` },
        expected: async () => [`HealthcareService/fac-${f.id}`],
      },
      'InsurancePlan _include=InsurancePlan:administered-by': {
        params: { _id: `ins-${aetna.id}` },
        expected: async () => [`Organization/ins-${aetna.id}`],
      },
      'InsurancePlan _include=InsurancePlan:owned-by': {
        params: { _id: `ins-${aetna.id}` },
        expected: async () => [`Organization/ins-${aetna.id}`],
      },
    }
  }

  /** What /fhir/metadata declares, as case names: `Type param`, `Type param.chain`, `Type _include=…`, `Type _revinclude=…`. */
  async function declared(): Promise<{ searches: string[]; includes: string[] }> {
    const statement = (await client.capabilityStatement()) as unknown as Statement
    const searches: string[] = []
    const includes: string[] = []
    for (const resource of statement.rest[0]!.resource) {
      for (const param of resource.searchParam) {
        if (RESULT_PARAMS.has(param.name)) continue
        if (param.name === '_has') {
          // reverse chaining: one case per reference its documentation lists ("… by Source:param, Source:param")
          const pairs = /by (.+)$/.exec(param.documentation)?.[1]?.split(', ') ?? ['(none listed)']
          for (const pair of pairs) searches.push(`${resource.type} _has:${pair}`)
          continue
        }
        searches.push(`${resource.type} ${param.name}`)
        // the chains a reference parameter takes are listed in its documentation ("Chains: a, b")
        const chains = /Chains: (.+)$/.exec(param.documentation)?.[1]?.split(', ') ?? []
        for (const chain of chains) searches.push(`${resource.type} ${param.name}.${chain}`)
      }
      for (const include of resource.searchInclude) includes.push(`${resource.type} _include=${include}`)
      for (const revinclude of resource.searchRevInclude) includes.push(`${resource.type} _revinclude=${revinclude}`)
    }
    return { searches, includes }
  }

  it('has a case for every parameter, chain, _include and _revinclude the CapabilityStatement declares, and none other', async () => {
    const { searches, includes } = await declared()
    expect(searches.length).toBeGreaterThan(50)
    expect(Object.keys(searchCases()).sort()).toEqual([...searches].sort())
    expect(Object.keys(includeCases()).sort()).toEqual([...includes].sort())
  })

  it('each declared search parameter matches its known rows exactly and not the others', async () => {
    const { searches } = await declared()
    const cases = searchCases()
    // a role's own id, whatever its form: the first role of the known clinician
    const roles = await matchesOf('PractitionerRole', { practitioner: `Practitioner/${fx.p.id}` })
    const roleId = roles.matches[0]!.id
    const resolve = (params: Params) =>
      Object.fromEntries(Object.entries(params).map(([key, value]) => [key, value === '$ROLE_ID' ? roleId : value]))
    for (const name of searches) {
      const type = name.split(' ')[0]!
      const test = cases[name]
      if (!test) continue // the case list is checked above
      const expected = await test.expected()
      expect(expected.length, `${name}: the fixture has a matching row`).toBeGreaterThan(0)
      const missed = (await test.missed?.()) ?? []
      if (test.unmet) {
        const target = await matchesOf(test.unmet.type, test.unmet.params)
        expect(target.matches.map(keyOf).sort(), `${name}: the value on ${test.unmet.type}`).toEqual(expected)
        for (const params of [test.match, test.miss])
          expect((await matchesOf(type, params, 1)).matches, `${name}=${Object.values(params).join()} (reaches nothing)`).toEqual([])
        continue
      }
      if (type === 'PractitionerRole') {
        // every match is a clinician the SQL names; the known one is among them, and not among the misses
        const known = test.known!() === 'first' ? expected.find((key) => fx.networked.has(key))! : test.known!()
        expect(expected, `${name}: the known clinician`).toContain(known)
        expect(fx.networked.has(known), `${name}: the known clinician is in a network`).toBe(true)
        const allowed = new Set(expected)
        // the first page of 1,000 (every page of a large set would be the whole directory's roles)
        const page = await matchesOf(type, resolve(test.match), 1)
        expect(page.matches.length, `${name}: matches`).toBeGreaterThan(0)
        for (const resource of page.matches) expect(allowed.has(keyOf(resource)), `${name}: ${keyOf(resource)} is not expected`).toBe(true)
        // the known clinician's roles alone, by a parameter other than the case's own (a search object has one value a key)
        const clinician = known.replace('PractitionerRole@', '')
        const only: Params =
          'practitioner' in test.match ? { location: `Location/prov-${clinician}` } : { practitioner: `Practitioner/${clinician}` }
        const withKnown = await matchesOf(type, { ...resolve(test.match), ...only })
        expect(withKnown.matches.map(keyOf), `${name}: the known clinician matches`).toContain(known)
        const miss = await matchesOf(type, { ...resolve(test.miss), ...only })
        expect(miss.matches.map(keyOf), `${name}: the other value does not match the known clinician`).toEqual([])
        continue
      }
      const match = await matchesOf(type, test.match)
      expect(match.matches.map(keyOf).sort(), `${name}=${Object.values(test.match).join()}`).toEqual(expected)
      const miss = await matchesOf(type, test.miss)
      const missKeys = miss.matches.map(keyOf).sort()
      expect(missKeys, `${name}=${Object.values(test.miss).join()} (must not match)`).toEqual(missed)
      expect(missKeys, name).not.toContain(expected[0])
    }
  })

  it('chains through several references, and _has with a chained parameter, match what the tables say', async () => {
    const { p, f, state } = fx
    const distinct = (resources: Resource[]) => [...new Set(resources.map(keyOf))].sort()
    // three references: a role's practice, its facility, the facility's health system (its roles by clinician)
    const systemName = { 'location.organization.partof.name': f.systemName }
    const roles = await matchesOf('PractitionerRole', systemName)
    expect(distinct(roles.matches)).toEqual(
      await providers(
        't.facility_id IN (SELECT f.id FROM facilities f JOIN health_systems h ON h.id = f.health_system_id WHERE lower(h.name) LIKE $1)',
        [like(f.systemName)],
      ),
    )
    expect(distinct(roles.matches)).toContain(role(p.id))
    expect((await matchesOf('PractitionerRole', { 'location.organization.partof.name': 'Zzqxw' }, 1)).matches).toEqual([])
    // two: a practice's facility location (at its address), that location's facility
    const facilityName = await matchesOf('Location', { 'partof.organization.name': f.name })
    const atNamed = `${sameAddress} AND t.facility_id IN (SELECT id FROM facilities WHERE lower(name) LIKE $1)`
    expect(distinct(facilityName.matches)).toEqual(
      await sqlKeys(`SELECT 'Location/prov-' || t.id AS key FROM providers t WHERE ${atNamed}`, [like(f.name)]),
    )
    expect(distinct(facilityName.matches)).toContain(`Location/prov-${p.id}`)
    // _has whose parameter is a chain: the networks with a clinician practicing in the state
    const inState = await matchesOf('Organization', { '_has:PractitionerRole:network:location.address-state': state.code })
    expect(distinct(inState.matches)).toEqual(
      await sqlKeys(
        `SELECT DISTINCT 'Organization/net-' || i.id AS key FROM providers t JOIN insurers i ON t.aggregated_insurance_networks_v1 ->> i.name = 'true'
          WHERE t.state = $1`,
        [state.code],
      ),
    )
    expect(inState.matches.length).toBeGreaterThan(0)
    // … and a chain on the clinicians' networks (resolved to network ids first): the facilities of Aetna's members
    const members = await matchesOf('Organization', { '_has:PractitionerRole:organization:network.name': 'Aetna Network' })
    expect(distinct(members.matches)).toEqual(
      await facilities(
        'Organization/',
        `t.id IN (SELECT facility_id FROM providers WHERE aggregated_insurance_networks_v1 ->> $1 = 'true')`,
        ['Aetna'],
      ),
    )
    expect(members.matches.length).toBeGreaterThan(0)
    expect((await matchesOf('Organization', { '_has:PractitionerRole:network:location.address-state': 'ZZ' })).matches).toEqual([])
  })

  it('_has of a role-level parameter (its network, its id) goes by the role that references, not by its clinician', async () => {
    const { p, aetna, small } = fx
    const keys = async (params: Params) => (await matchesOf('Organization', params)).matches.map(keyOf).sort()
    // a role is in one network: the networks of the roles in Aetna's network are Aetna's alone (not every network of
    // Aetna's clinicians)
    expect(await keys({ '_has:PractitionerRole:network:network': `Organization/net-${aetna.id}` })).toEqual([
      `Organization/net-${aetna.id}`,
    ])
    expect(await keys({ '_has:PractitionerRole:network:network.name': `${small.name} Network` })).toEqual([`Organization/net-${small.id}`])
    expect(await keys({ '_has:PractitionerRole:network:network.partof': `Organization/ins-${aetna.id}` })).toEqual([
      `Organization/net-${aetna.id}`,
    ])
    // a role named by its id: its network, and of a clinician's roles only that one
    const roles = await matchesOf('PractitionerRole', { practitioner: `Practitioner/${p.id}` })
    const networks = await sqlKeys(
      `SELECT 'Organization/net-' || i.id AS key FROM providers t JOIN insurers i ON t.aggregated_insurance_networks_v1 ->> i.name = 'true' WHERE t.id = $1`,
      [p.id],
    )
    expect(networks.length).toBeGreaterThan(1)
    const first = roles.matches[0]!
    const itsNetwork = (first.extension as { url: string; valueReference: { reference: string } }[]).find(
      (extension) => extension.url === FHIR_EXTENSIONS.networkReference,
    )!.valueReference.reference
    expect(await keys({ '_has:PractitionerRole:network:_id': first.id! })).toEqual([itsNetwork])
    // a Practitioner by the id of one of its roles, and none by a role it does not have (a network it is not in)
    expect((await matchesOf('Practitioner', { '_has:PractitionerRole:practitioner:_id': first.id! })).matches.map(keyOf)).toEqual([
      `Practitioner/${p.id}`,
    ])
    const [outside] = await sqlKeys(
      `SELECT i.id::text AS key FROM insurers i, providers t WHERE t.id = $1 AND (t.aggregated_insurance_networks_v1 ->> i.name) IS DISTINCT FROM 'true' ORDER BY i.id LIMIT 1`,
      [p.id],
    )
    expect((await matchesOf('Practitioner', { '_has:PractitionerRole:practitioner:_id': `${p.id}-n${outside!}` })).matches).toEqual([])
    expect((await matchesOf('Location', { '_has:PractitionerRole:location:_id': `${p.id}-n${outside!}` })).matches).toEqual([])
  })

  it('each declared _include and _revinclude adds exactly the referenced or referring resources', async () => {
    const { includes } = await declared()
    const cases = includeCases()
    for (const name of includes) {
      const [type, parameter] = name.split(' ') as [string, string]
      const test = cases[name]
      if (!test) continue
      const [key, value] = parameter.split('=') as [string, string]
      const expected = await test.expected()
      expect(expected.length, `${name}: the fixture has a referenced row`).toBeGreaterThan(0)
      const { matches, included } = await matchesOf(type, { ...test.params, [key]: value })
      expect(matches.length, name).toBeGreaterThan(0)
      const keys = included.map(keyOf)
      if (value.startsWith('PractitionerRole:') && key === '_revinclude') {
        // roles: every one included refers to a clinician the SQL names, the known clinician's among them
        const allowed = new Set(expected)
        for (const item of keys) expect(allowed.has(item), `${name}: ${item}`).toBe(true)
        expect(keys.length, name).toBeGreaterThan(0)
        const known = expected.includes(role(fx.p.id)) ? role(fx.p.id) : expected.find((item) => fx.networked.has(item))!
        expect(keys, name).toContain(known)
      } else expect([...new Set(keys)].sort(), name).toEqual(expected)
      // without the _include, nothing is included
      const plain = await matchesOf(type, test.params)
      expect(plain.included, `${name}: nothing without it`).toEqual([])
    }
  })

  it('Location.partOf: a practice at its facility address is part of the facility location; one elsewhere has none', async () => {
    const at = (await (await fetch(`${base}/Location/prov-${fx.p.id}`)).json()) as Resource
    expect(at.partOf).toEqual({ reference: `Location/fac-${fx.f.id}` })
    const away = (await (await fetch(`${base}/Location/prov-${fx.away.id}`)).json()) as Resource
    expect(away.partOf).toBeUndefined()
    const facility = (await (await fetch(`${base}/Location/fac-${fx.f.id}`)).json()) as Resource
    expect(facility.partOf).toBeUndefined()
  })

  it('_total=none answers no total; accurate the count', async () => {
    for (const total of ['none', undefined]) {
      const bundle = (await client.search({
        resourceType: 'InsurancePlan',
        searchParams: { _count: '2', ...(total ? { _total: total } : {}) },
      })) as unknown as Bundle
      expect(bundle.entry?.length).toBe(2)
      expect('total' in bundle, `_total=${total}`).toBe(false)
    }
    const accurate = (await client.search({
      resourceType: 'InsurancePlan',
      searchParams: { _count: '2', _total: 'accurate' },
    })) as unknown as Bundle
    expect(accurate.total).toBe(Number((await ctx.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM insurers')).rows[0]!.n))
  })

  it('_lastUpdated of the kinds without a time of their own is the data load time', async () => {
    const plans = await matchesOf('InsurancePlan', {})
    for (const plan of plans.matches) expect((plan.meta as { lastUpdated: string }).lastUpdated).toBe(fx.loadedAt)
    const after = new Date(new Date(fx.loadedAt).getTime() + 1).toISOString()
    expect((await matchesOf('InsurancePlan', { _lastUpdated: `ge${after}` })).matches).toEqual([])
    expect((await matchesOf('InsurancePlan', { _lastUpdated: `le${fx.loadedAt}` })).matches.length).toBe(plans.matches.length)
    // health systems, payers and networks alike; facilities keep their own time
    const organizations = await matchesOf('Organization', { _lastUpdated: `eq${fx.loadedAt}` })
    expect(new Set(organizations.matches.map((resource) => resource.id.replace(/\d+$/, '')))).toEqual(new Set(['hs-', 'ins-', 'net-']))
  })

  it('Plan-Net invariants on every InsurancePlan and Organization: distinct plan types, an address', async () => {
    const plans = await matchesOf('InsurancePlan', {})
    expect(plans.matches.length).toBeGreaterThan(0)
    let withPlans = 0
    for (const plan of plans.matches) {
      const codes = ((plan.plan as { type: { coding: { code: string }[] } }[] | undefined) ?? []).flatMap((item) =>
        item.type.coding.map((coding) => coding.code),
      )
      if (codes.length) withPlans++
      // plan-type-is-distinct: plan.type.coding.code.isDistinct()
      expect(new Set(codes).size, `InsurancePlan/${plan.id}: ${codes.join()}`).toBe(codes.length)
    }
    expect(withPlans).toBeGreaterThan(0)
    const organizations = await matchesOf('Organization', {})
    for (const organization of organizations.matches) {
      const address = organization.address as { country?: string }[] | undefined
      expect(address?.length, `Organization/${organization.id}`).toBeGreaterThan(0)
      expect(address![0]!.country, `Organization/${organization.id}`).toBe('US')
    }
  })

  it('near in US survey miles answers the distance in [mi_us]', async () => {
    const { f } = fx
    const international = await client.search({
      resourceType: 'Location',
      searchParams: { near: `${f.lat}|${f.lon}|20|[mi_i]`, _count: '5' },
    })
    const survey = await client.search({ resourceType: 'Location', searchParams: { near: `${f.lat}|${f.lon}|20|[mi_us]`, _count: '5' } })
    const distances = (bundle: unknown) =>
      ((bundle as Bundle).entry ?? []).map(
        (entry) => entry.search.extension!.find((e) => e.url === FHIR_EXTENSIONS.locationDistance)!.valueDistance,
      )
    const mi = distances(international)
    const us = distances(survey)
    expect(us.length).toBe(5)
    for (const [i, distance] of us.entries()) {
      expect(distance.code).toBe('[mi_us]')
      expect(distance.unit).toBe('[mi_us]')
      expect(mi[i]!.code).toBe('[mi_i]')
      expect(distance.value).toBeCloseTo((mi[i]!.value * 1609.344) / 1609.347218694, 5)
    }
    const farthest = [...mi].reverse().find((d) => d.value > 1)
    if (farthest) expect(us[mi.indexOf(farthest)]!.value).toBeLessThan(farthest.value)
  })

  it('a read with a non-JSON _format answers 406 with an OperationOutcome, as a search does; JSON reads as before', async () => {
    for (const path of [`/Location/fac-${fx.f.id}?_format=xml`, '/metadata?_format=application/fhir+xml', '/Location?_format=xml']) {
      const response = await fetch(`${base}${path}`)
      expect(response.status, path).toBe(406)
      expect(await response.json(), path).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'not-supported' }] })
    }
    expect((await fetch(`${base}/Location/fac-${fx.f.id}?_format=json`)).status).toBe(200)
  })

  it('a NUL character in a /fhir query or form answers 400 with an OperationOutcome', async () => {
    const get = await fetch(`${base}/Practitioner?name=a%00b`)
    expect(get.status).toBe(400)
    expect(await get.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid' }] })
    const post = await fetch(`${base}/Practitioner/_search`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=a%00b',
    })
    expect(post.status).toBe(400)
    expect(await post.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'invalid' }] })
    const read = await fetch(`${base}/Location/fac-${fx.f.id}?_format=js%00on`)
    expect(read.status).toBe(400)
  })

  it('If-None-Match on /fhir/metadata answers 304', async () => {
    const first = await fetch(`${base}/metadata`)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^W\/"/)
    const second = await fetch(`${base}/metadata`, { headers: { 'if-none-match': etag } })
    expect(second.status).toBe(304)
    expect(await second.text()).toBe('')
    expect((await fetch(`${base}/metadata`, { headers: { 'if-none-match': 'W/"other"' } })).status).toBe(200)
  })

  it('the public export manifest needs no access token', async () => {
    const manifest = (await (await fetch(`${base}/$export?_type=InsurancePlan`)).json()) as { requiresAccessToken: boolean }
    expect(manifest.requiresAccessToken).toBe(false)
  })
})

describe('FHIR_PUBLIC=true: the rate limit answers 429 with an OperationOutcome', { timeout: 300_000 }, () => {
  const ctx = useTestApp({ FHIR_PUBLIC: 'true' })

  it('after FHIR_REQUESTS_PER_MINUTE calls from one address, the next is refused', async () => {
    // an address of its own (TEST-NET-2): the count is per client address
    const call = () => ctx.app.inject({ method: 'GET', url: '/fhir/metadata', remoteAddress: '198.51.100.36' })
    for (let sent = 0; sent < FHIR_REQUESTS_PER_MINUTE; sent += 100) {
      const answers = await Promise.all(Array.from({ length: Math.min(100, FHIR_REQUESTS_PER_MINUTE - sent) }, call))
      for (const answer of answers) expect(answer.statusCode).toBe(200)
    }
    const refused = await call()
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['content-type']).toMatch(/^application\/fhir\+json/)
    expect(refused.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'throttled' }] })
    // another address is not counted with it
    expect((await ctx.app.inject({ method: 'GET', url: '/fhir/metadata', remoteAddress: '198.51.100.37' })).statusCode).toBe(200)
  })
})

describe('FHIR_PUBLIC=false: an API key reads the directory; the export manifest asks for the token', { timeout: 120_000 }, () => {
  const ctx = useTestApp({}, { dataset: true })

  it('Authorization: Bearer sk-… of a Care Select company answers 200; without it 401', async () => {
    const tenant = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    const key = await new ApiTokenService(ctx.db.prisma, CLI_ACTOR).create({ user_id: tenant.users[0]!.id, name: 'fhir partner' })
    const headers = { authorization: `Bearer ${key.token}` }
    const id = (await ctx.db.pool.query<{ id: number }>('SELECT min(id) AS id FROM facilities')).rows[0]!.id
    const read = await ctx.app.inject({ method: 'GET', url: `/fhir/Location/fac-${id}`, headers })
    expect(read.statusCode).toBe(200)
    expect(read.json()).toMatchObject({ resourceType: 'Location', id: `fac-${id}` })
    const search = await ctx.app.inject({ method: 'GET', url: '/fhir/InsurancePlan?_count=1', headers })
    expect(search.statusCode).toBe(200)
    expect(search.json()).toMatchObject({ resourceType: 'Bundle', type: 'searchset' })
    expect((await ctx.app.inject({ method: 'GET', url: `/fhir/Location/fac-${id}` })).statusCode).toBe(401)
    const revoked = await ctx.app.inject({
      method: 'GET',
      url: `/fhir/Location/fac-${id}`,
      headers: { authorization: 'Bearer sk-not-a-key' },
    })
    expect(revoked.statusCode).toBe(401)
    expect(revoked.json()).toMatchObject({ resourceType: 'OperationOutcome' })

    const manifest = await ctx.app.inject({ method: 'GET', url: '/fhir/$export?_type=Location', headers })
    expect(manifest.statusCode).toBe(200)
    expect(manifest.json()).toMatchObject({ requiresAccessToken: true, output: [{ type: 'Location' }] })
  })
})
