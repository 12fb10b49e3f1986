import { describe, expect, it } from 'vitest'
import { isValidNpi } from '../npi.ts'
import {
  CONDITION_DRUGS,
  COUNTY_AREA_CODES,
  GENERIC_DISPENSING_SHARE,
  icd10StarterCodes,
  MAINTENANCE_DRUGS,
  procedureCodes,
  specialties,
  THERAPY_OF,
} from '../reference/index.ts'
import { STATE_BY_ABBR } from '../reference/states.ts'
import { CONDITIONS, PROVIDER_MIX_FULL, SNAKEBITE_STATE_SHARE } from './calibration.ts'
import { REGIONAL_NAME_WORDS } from './names.ts'
import { arrayLiteral, copyTextRow, csvRow, encodeCopy } from './copy.ts'
import { PHARMACY_WINDOW_DAYS, SyntheticDataset, type ClaimBundle, type PatientRow, type ProviderRow } from './dataset.ts'
import { hash32, Rng, rngFor, WeightedTable } from './prng.ts'
import { SCALES } from './scales.ts'

async function take<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

// One dataset per seed for the whole file: building the ZIP tables takes about a second.
const ds = new SyntheticDataset({ seed: 42, scale: 'ci' })
const other = new SyntheticDataset({ seed: 43, scale: 'ci' })

describe('PRNG', () => {
  it('is deterministic per (seed, stream, index) and differs across them', () => {
    const a = rngFor(1, 'x', 5)
    const b = rngFor(1, 'x', 5)
    const seq = (r: Rng) => Array.from({ length: 5 }, () => r.nextUint32())
    expect(seq(a)).toEqual(seq(b))
    expect(seq(rngFor(1, 'x', 6))).not.toEqual(seq(rngFor(1, 'x', 5)))
    expect(hash32('a', 1)).not.toBe(hash32('a', 2))
  })
  it('hashes and seeds exactly as the string-based reference (cached stream prefixes, arithmetic digits)', () => {
    // the hash every generated row was made with before the fast paths (docs/decisions/0059)
    const reference = (...parts: (string | number)[]) => {
      let h = 0x811c9dc5
      for (const part of parts) {
        const text = typeof part === 'number' ? `#${part}` : part
        for (let i = 0; i < text.length; i++) {
          h ^= text.charCodeAt(i)
          h = Math.imul(h, 0x01000193)
        }
        h ^= 0xff
        h = Math.imul(h, 0x01000193)
      }
      h ^= h >>> 16
      h = Math.imul(h, 0x85ebca6b)
      h ^= h >>> 13
      h = Math.imul(h, 0xc2b2ae35)
      h ^= h >>> 16
      return h >>> 0
    }
    const numbers = [0, -0, 1, 9, 10, 99, 100, 12_345, 20_251_231, 2 ** 31, 2 ** 32 - 1, 2 ** 53 - 1, -1, 1.5, -0.25, 1e21, NaN, Infinity]
    for (const a of numbers) {
      expect(hash32(a, 'provider', a), String(a)).toBe(reference(a, 'provider', a))
      expect(hash32('claims', a, 7), String(a)).toBe(reference('claims', a, 7))
    }
    // sfc32 seeded through the reference hash
    const referenceRng = (seed: number, stream: number) => {
      let [a, b, c, d] = [seed >>> 0, (stream ^ 0x9e3779b9) >>> 0, reference(seed, stream, 'c'), 1]
      const next = () => {
        const t = (((a + b) | 0) + d) | 0
        d = (d + 1) | 0
        a = b ^ (b >>> 9)
        b = (c + (c << 3)) | 0
        c = (c << 21) | (c >>> 11)
        c = (c + t) | 0
        return t >>> 0
      }
      for (let i = 0; i < 12; i++) next()
      return Array.from({ length: 4 }, next)
    }
    const seq = (r: Rng) => Array.from({ length: 4 }, () => r.nextUint32())
    for (const seed of [0, 42, 20_251_231, 2 ** 32 - 1])
      for (const stream of ['provider', 'claims', 'price-level-facility'])
        for (const index of [0, 1, 17, 999_999, 5_999_999, 123_456_789]) {
          const expected = referenceRng(reference(seed, stream, index), reference(stream, index, seed))
          expect(seq(rngFor(seed, stream, index)), `${seed} ${stream} ${index}`).toEqual(expected)
        }
    // the per-stream cache follows a change of seed
    expect(seq(rngFor(42, 'x', 3))).toEqual(referenceRng(reference(42, 'x', 3), reference('x', 3, 42)))
    expect(seq(rngFor(43, 'x', 3))).toEqual(referenceRng(reference(43, 'x', 3), reference('x', 3, 43)))
  })
  it('produces roughly uniform values and honours weights', () => {
    const r = new Rng(7)
    let sum = 0
    for (let i = 0; i < 20_000; i++) sum += r.next()
    expect(sum / 20_000).toBeCloseTo(0.5, 1)
    const t = new WeightedTable([
      ['a', 1],
      ['b', 3],
    ] as const)
    let b = 0
    for (let i = 0; i < 20_000; i++) if (t.pick(r) === 'b') b++
    expect(b / 20_000).toBeGreaterThan(0.72)
    expect(b / 20_000).toBeLessThan(0.78)
  })
})

describe('SyntheticDataset (ci scale)', () => {
  it('same seed gives the same rows; a different seed different rows', async () => {
    const again = new SyntheticDataset({ seed: 42, scale: 'ci' })
    expect(again.provider(17)).toEqual(ds.provider(17))
    expect(again.patient(99)).toEqual(ds.patient(99))
    expect(again.facilities).toEqual(ds.facilities)
    expect(again.claimsOfPatient(ds.patient(5))).toEqual(ds.claimsOfPatient(ds.patient(5)))
    expect(again.snakebite(3)).toEqual(ds.snakebite(3))
    expect(other.provider(17)).not.toEqual(ds.provider(17))
    expect(other.facilities.map((f) => f.name)).not.toEqual(ds.facilities.map((f) => f.name))
    // rows do not depend on the generation range
    const slice = await take(ds.providers(10, 12))
    expect(slice).toEqual([ds.provider(10), ds.provider(11)])
  })

  it("writes a provider for COPY with its insurer networks as exactly the JSON text of provider()'s networks", () => {
    const states = new Set<string>()
    for (let i = 0; i < SCALES.ci.providers; i += 7) {
      const { aggregated_insurance_networks_v1: networks, ...row } = ds.provider(i)
      const { aggregated_insurance_networks_v1: text, ...copyRow } = ds.providerForCopy(i)
      expect(text).toBe(JSON.stringify(networks))
      expect(copyRow).toEqual(row)
      states.add(row.state)
    }
    expect(states.size).toBeGreaterThan(40)
  })

  it('gives every provider and facility a unique NPI with a valid Luhn check digit', async () => {
    const providers = await take(ds.providers())
    const npis = new Set([...providers.map((p) => p.npi), ...ds.facilities.map((f) => f.npi)])
    expect(npis.size).toBe(providers.length + ds.facilities.length)
    for (const npi of npis) expect(isValidNpi(npi), npi).toBe(true)
  })

  it('gives phones the area code of their county, one ZIP per street address and regional systems (issue 33 item 15)', async () => {
    const providers = await take(ds.providers())
    for (const row of [...providers, ...ds.facilities]) {
      if (row.county_fips && COUNTY_AREA_CODES[row.county_fips])
        expect(row.phone_number.slice(0, 3), row.zip_code).toBe(COUNTY_AREA_CODES[row.county_fips])
    }
    expect(COUNTY_AREA_CODES['36061']).toBe('212') // Manhattan, not 305
    const zipsOf = new Map<string, Set<string>>()
    for (const a of [
      ...providers.map((p) => [p.address_line_1, p.city, p.state, p.zip_code]),
      ...ds.facilities.map((f) => [f.address_line_1, f.city, f.state, f.zip_code]),
    ]) {
      const key = a.slice(0, 3).join('|')
      zipsOf.set(key, (zipsOf.get(key) ?? new Set()).add(a[3] as string))
    }
    expect([...zipsOf].filter(([, z]) => z.size > 1)).toEqual([])
    const byId = new Map(ds.healthSystems.map((h) => [h.id, h]))
    for (const h of ds.healthSystems)
      for (const [word, states] of Object.entries(REGIONAL_NAME_WORDS)) if (h.name.includes(word)) expect(states, h.name).toContain(h.state)
    const hospitals = ds.facilities.filter(
      (f) => f.health_system_id !== null && (f.facility_type === 'hospital' || f.facility_type === 'critical_access'),
    )
    const division = (st: string) => STATE_BY_ABBR.get(st)?.division
    const inHome = hospitals.filter((f) => division(f.state) === division(byId.get(f.health_system_id as number)?.state ?? '')).length
    expect(inHome / hospitals.length).toBeGreaterThanOrEqual(0.9)
  })

  it('has every hospital that gives an antivenom buy it, in low-bite states too (Delaware was the top CroFab opportunity)', () => {
    const bought = new Set(ds.antivenomPurchases().map((p) => `${p.facility_id}|${p.product}`))
    const used = new Set<string>()
    for (let i = 0; i < ds.snakebiteCaseCount; i++) {
      const c = ds.snakebite(i).case
      if (c.antivenom && c.units_used > 0) used.add(`${c.facility_id}|${c.antivenom}`)
    }
    expect(used.size).toBeGreaterThan(0)
    expect([...used].filter((k) => !bought.has(k))).toEqual([])
  })

  it('calibrates the provider mix, placement and demographics within tolerance', async () => {
    const providers: ProviderRow[] = await take(ds.providers())
    expect(providers).toHaveLength(SCALES.ci.providers)
    const total = Object.values(PROVIDER_MIX_FULL).reduce((a, b) => a + b, 0)
    expect(total).toBe(6_000_000)
    const share = (kind: string) => providers.filter((p) => p.provider_kind === kind).length / providers.length
    expect(share('physician')).toBeGreaterThan(1_000_000 / total - 0.025)
    expect(share('physician')).toBeLessThan(1_000_000 / total + 0.025)
    expect(share('nurse_practitioner')).toBeGreaterThan(385_000 / total - 0.015)
    expect(share('nurse_practitioner')).toBeLessThan(385_000 / total + 0.015)
    const physicians = providers.filter((p) => p.provider_kind === 'physician')
    expect(physicians.every((p) => (p.title === 'MD' || p.title === 'DO') && p.medical_school !== null && p.years_in_practice >= 1)).toBe(
      true,
    )
    // population-weighted: California has ~11.7% of the population, Wyoming ~0.17%
    const ca = providers.filter((p) => p.state === 'CA').length / providers.length
    expect(ca).toBeGreaterThan(0.09)
    expect(ca).toBeLessThan(0.145)
    expect(providers.filter((p) => p.state === 'WY').length / providers.length).toBeLessThan(0.01)
    for (const p of providers.slice(0, 200)) {
      expect(p.zip_code).toMatch(/^\d{5}$/)
      expect(p.confidence).toBeGreaterThan(0)
      expect(p.confidence).toBeLessThanOrEqual(1)
      expect(p.last_verified_at <= '2025-12-31').toBe(true)
      expect(Object.keys(p.aggregated_insurance_networks_v1)).toContain('UnitedHealthcare')
    }
  })

  it('calibrates condition prevalence among adults and the payer mix by age', async () => {
    const patients: PatientRow[] = await take(ds.patients())
    const adults = patients.filter((p) => p.age >= 18)
    const prevalence = (key: string) => adults.filter((p) => p.conditions.includes(key)).length / adults.length
    for (const c of CONDITIONS) {
      const target = c.diagnosed_adult_target ?? c.adult_target
      const tolerance = Math.max(0.006, target * 0.2)
      expect(Math.abs(prevalence(c.key) - target), `${c.key} ${prevalence(c.key)}`).toBeLessThan(tolerance)
    }
    const seniors = patients.filter((p) => p.age >= 65)
    expect(seniors.filter((p) => p.payer_type === 'medicare').length / seniors.length).toBeGreaterThan(0.85)
    const working = patients.filter((p) => p.age >= 18 && p.age < 65)
    expect(working.filter((p) => p.payer_type === 'commercial').length / working.length).toBeGreaterThan(0.6)
    expect(patients.filter((p) => p.payer_type === 'medicaid').length).toBeGreaterThan(0)
  })

  it('claims reference generated patients, providers, facilities and known codes; amounts add up', async () => {
    const providerNpis = new Set((await take(ds.providers())).map((p) => p.npi))
    const facilityNpis = new Set(ds.facilities.map((f) => f.npi))
    const icd = new Set(
      icd10StarterCodes()
        .filter((c) => c.billable)
        .map((c) => c.code),
    )
    const cpt = new Set(procedureCodes().map((p) => p.code))
    const bundles: ClaimBundle[] = await take(ds.claims(0, 300))
    expect(bundles.length).toBeGreaterThan(300)
    const ids = new Set<number>()
    for (const b of bundles) {
      expect(ids.has(b.claim.id)).toBe(false)
      ids.add(b.claim.id)
      expect(b.claim.patient_id).toBeGreaterThanOrEqual(1)
      expect(b.claim.patient_id).toBeLessThanOrEqual(300)
      expect(providerNpis.has(b.claim.rendering_npi)).toBe(true)
      if (b.claim.facility_npi) expect(facilityNpis.has(b.claim.facility_npi)).toBe(true)
      for (const d of b.diagnoses) expect(icd.has(d.icd10_code) || d.icd10_code.startsWith('Z00'), d.icd10_code).toBe(true)
      for (const l of b.procedures) {
        expect(cpt.has(l.procedure_code)).toBe(true)
        expect(l.insurer_amount + l.patient_amount).toBeCloseTo(l.negotiated_amount, 1)
      }
      expect(b.claim.negotiated_amount).toBeCloseTo(
        b.procedures.reduce((s, l) => s + l.negotiated_amount, 0),
        1,
      )
    }
  })

  it('fills maintenance drugs only for the conditions a patient has, monthly or quarterly, over the last year', async () => {
    const patients = await take(ds.patients())
    const providers = new Map((await take(ds.providers())).map((p) => [p.npi, p]))
    const fills = patients.flatMap((p) => ds.pharmacyOfPatient(p).map((f) => ({ p, f })))
    expect(fills.length).toBeGreaterThan(patients.length * 0.8)
    expect(new Set(fills.map(({ f }) => f.id)).size).toBe(fills.length)
    const drugByNdc = new Map(MAINTENANCE_DRUGS.map((d) => [d.ndc, d]))
    const first = new Date(Date.parse('2025-12-31T00:00:00Z') - (PHARMACY_WINDOW_DAYS - 1) * 86_400_000).toISOString().slice(0, 10)
    for (const { p, f } of fills) {
      const drug = drugByNdc.get(f.ndc)!
      expect(drug, f.ndc).toBeDefined()
      expect(f.drug_name).toBe(
        drug.generic ? `${drug.generic_name} ${drug.strength} (generic)` : `${drug.brand_name} (${drug.generic_name})`,
      )
      // the drug treats one of the patient's conditions, and a clinician of that condition prescribed it
      const treats = p.conditions.filter((c) => CONDITION_DRUGS[c]?.drugs.some(([k]) => k === drug.key))
      expect(treats.length, `${p.id} ${drug.key}`).toBeGreaterThan(0)
      const specialtiesOf = treats.flatMap((c) => CONDITIONS.find((x) => x.key === c)!.specialties)
      expect(providers.get(f.prescriber_npi), f.prescriber_npi).toBeDefined()
      expect(f.fill_date >= first && f.fill_date <= '2025-12-31', f.fill_date).toBe(true)
      expect(f.days_supply).toBe(drug.days_per_fill)
      expect(f.units).toBe(drug.days_per_fill === 28 ? drug.units_per_30_days : (drug.units_per_30_days * drug.days_per_fill) / 30)
      expect(f.negotiated_amount).toBeLessThanOrEqual(f.list_amount * 1.5)
      expect(Math.abs(f.insurer_amount + f.patient_amount - f.negotiated_amount)).toBeLessThan(0.011)
      expect(specialtiesOf.length).toBeGreaterThan(0)
    }
    // most prescribers practise one of the condition's specialties (the nearest one otherwise)
    const bySpecialty = fills.filter(({ p, f }) => {
      const drug = drugByNdc.get(f.ndc)!
      const spec = providers.get(f.prescriber_npi)!.primary_taxonomy_code
      return p.conditions.some(
        (c) => CONDITION_DRUGS[c]?.drugs.some(([k]) => k === drug.key) && CONDITIONS.find((x) => x.key === c)!.specialties.includes(spec),
      )
    })
    expect(bySpecialty.length / fills.length).toBeGreaterThan(0.9)
    // a patient refills a drug about every days_per_fill days: a quarterly drug 2-5 times a year
    const perPatientDrug = new Map<string, number>()
    for (const { f } of fills)
      if (drugByNdc.get(f.ndc)!.days_per_fill === 90)
        perPatientDrug.set(`${f.patient_id} ${f.ndc}`, (perPatientDrug.get(`${f.patient_id} ${f.ndc}`) ?? 0) + 1)
    for (const count of perPatientDrug.values()) expect(count).toBeLessThanOrEqual(5)
    const mean = [...perPatientDrug.values()].reduce((a, b) => a + b, 0) / perPatientDrug.size
    expect(mean).toBeGreaterThan(2.5)
    expect(mean).toBeLessThan(4.1)
    // same seed, same fills
    expect(ds.pharmacyOfPatient(patients[7]!)).toEqual(new SyntheticDataset({ seed: 42, scale: 'ci' }).pharmacyOfPatient(patients[7]!))
    // a second dataset is built for the determinism check: allow for a loaded machine
  }, 30_000)

  it('lists real-format package NDCs for drugs of calibrated conditions only', () => {
    const keys = new Set(MAINTENANCE_DRUGS.map((d) => d.key))
    expect(keys.size).toBe(MAINTENANCE_DRUGS.length)
    expect(new Set(MAINTENANCE_DRUGS.map((d) => d.ndc)).size).toBe(MAINTENANCE_DRUGS.length)
    for (const d of MAINTENANCE_DRUGS) expect(d.ndc).toMatch(/^\d{5}-\d{4}-\d{2}$/)
    for (const [condition, plan] of Object.entries(CONDITION_DRUGS)) {
      expect(CONDITIONS.map((c) => c.key)).toContain(condition)
      expect(plan.treated_share).toBeGreaterThan(0)
      expect(plan.treated_share).toBeLessThanOrEqual(1)
      for (const [drug] of plan.drugs) expect(keys.has(drug), drug).toBe(true)
    }
  })

  it('dispenses a generic for about 90 % of the fills of a brand that has one, one product per molecule a patient', async () => {
    const patients = await take(ds.patients())
    const byKey = new Map(MAINTENANCE_DRUGS.map((d) => [d.key, d]))
    const drugByNdc = new Map(MAINTENANCE_DRUGS.map((d) => [d.ndc, d]))
    // every generic equivalent is a generic of the same molecule as its brand
    for (const brand of MAINTENANCE_DRUGS)
      for (const g of brand.generics ?? []) {
        expect(byKey.get(g)?.generic, g).toBe(true)
        expect(byKey.get(g)!.generic_name).toBe(brand.generic_name)
        expect(THERAPY_OF.get(g)).toBe(brand.key)
      }
    const fills = patients.flatMap((p) => ds.pharmacyOfPatient(p))
    const multiSource = new Set(MAINTENANCE_DRUGS.filter((d) => d.generics?.length).map((d) => d.key))
    const ofMultiSource = fills.filter((f) => multiSource.has(THERAPY_OF.get(drugByNdc.get(f.ndc)!.key)!))
    expect(ofMultiSource.length).toBeGreaterThan(500)
    const genericShare = ofMultiSource.filter((f) => drugByNdc.get(f.ndc)!.generic).length / ofMultiSource.length
    expect(Math.abs(genericShare - GENERIC_DISPENSING_SHARE)).toBeLessThan(0.05)
    // brands without a generic keep every fill; generics and brands both appear
    expect(new Set(fills.map((f) => f.ndc)).size).toBeGreaterThan(18)
    const products = new Map<string, Set<string>>()
    for (const f of fills) {
      const therapy = THERAPY_OF.get(drugByNdc.get(f.ndc)!.key)!
      const key = `${f.patient_id} ${therapy}`
      products.set(key, (products.get(key) ?? new Set()).add(f.ndc))
    }
    for (const [key, ndcs] of products) expect(ndcs.size, key).toBe(1)
  }, 30_000)

  it('gives every brand whose molecule is sold as a generic or unbranded biosimilar that product (celecoxib, insulin glargine, adalimumab)', async () => {
    const byKey = new Map(MAINTENANCE_DRUGS.map((d) => [d.key, d]))
    for (const brand of ['celebrex', 'lantus', 'humira', 'norvasc', 'zoloft', 'ventolin', 'symbicort', 'spiriva']) {
      const generics = byKey.get(brand)?.generics ?? []
      expect(generics.length, brand).toBeGreaterThan(0)
      for (const g of generics) {
        const drug = byKey.get(g)!
        // a package NDC of its own in the 11-digit 5-4-2 form, the brand's strength and at most the brand's minimum age
        expect(drug.ndc, g).toMatch(/^\d{5}-\d{4}-\d{2}$/)
        expect(drug.ndc).not.toBe(byKey.get(brand)!.ndc)
        expect(drug.min_age).toBeLessThanOrEqual(byKey.get(brand)!.min_age)
        expect(drug.list_price_30_days).toBeLessThan(byKey.get(brand)!.list_price_30_days)
      }
    }
    expect(new Set(MAINTENANCE_DRUGS.map((d) => d.ndc)).size).toBe(MAINTENANCE_DRUGS.length)
    // the celecoxib, insulin glargine and adalimumab patients are mostly on the generic
    const patients = await take(ds.patients())
    const fills = patients.flatMap((p) => ds.pharmacyOfPatient(p))
    const drugByNdc = new Map(MAINTENANCE_DRUGS.map((d) => [d.ndc, d]))
    const of = fills.filter((f) => ['celebrex', 'lantus', 'humira'].includes(THERAPY_OF.get(drugByNdc.get(f.ndc)?.key ?? '') ?? ''))
    expect(of.length).toBeGreaterThan(100)
    expect(of.filter((f) => drugByNdc.get(f.ndc)!.generic).length / of.length).toBeGreaterThan(0.8)
  }, 30_000)

  it('places snakebites in the South and Southwest, with antivenom purchases and usage per hospital', () => {
    const n = ds.snakebiteCaseCount
    expect(n).toBe(Math.round(7_500 * SCALES.ci.snakebite_fraction * 5))
    const cases = Array.from({ length: n }, (_, i) => ds.snakebite(i))
    const south = new Set(['TX', 'NC', 'GA', 'FL', 'AZ', 'VA', 'TN', 'AL', 'AR', 'OK', 'SC', 'LA', 'MS', 'NM', 'KY', 'WV', 'MO'])
    expect(cases.filter((c) => south.has(c.case.state)).length / n).toBeGreaterThan(0.75)
    expect(cases.filter((c) => c.case.state === 'TX').length / n).toBeGreaterThan(0.1)
    expect(cases.every((c) => c.case.icd10_code.startsWith('T63.0'))).toBe(true)
    expect(cases.every((c) => SNAKEBITE_STATE_SHARE[c.case.state] !== undefined)).toBe(true)
    const facilityIds = new Set(ds.facilities.map((f) => f.id))
    for (const c of cases) {
      expect(facilityIds.has(c.case.facility_id)).toBe(true)
      expect(c.claim.claim.patient_id).toBe(c.patient.id)
      // the person bitten is a sampled patient living in the case's state, born before the bite
      expect(c.patient).toEqual(ds.patient(c.patient.id - 1))
      expect(c.patient.state).toBe(c.case.state)
      expect(c.case.zip_code).toBe(c.patient.zip_code)
      expect(Number(c.case.event_date.slice(0, 4))).toBeGreaterThan(c.patient.birth_year)
      if (c.case.antivenom)
        expect(
          c.claim.procedures.some(
            (l) => l.procedure_code === (c.case.antivenom === 'crofab' ? 'J0840' : 'J0841') && l.units === c.case.units_used,
          ),
        ).toBe(true)
    }
    // no extra patient rows: ids within the sampled population, men bitten more often (published ~70 %)
    expect(cases.every((c) => c.patient.id >= 1 && c.patient.id <= SCALES.ci.patients)).toBe(true)
    expect(cases.filter((c) => c.patient.gender === 'M').length / n).toBeGreaterThan(0.58)
    const treated = cases.filter((c) => c.case.antivenom)
    expect(treated.filter((c) => c.case.antivenom === 'crofab').length / treated.length).toBeGreaterThan(0.6)
    const purchases = ds.antivenomPurchases()
    expect(purchases.length).toBeGreaterThan(0)
    expect(purchases.every((p) => facilityIds.has(p.facility_id) && p.units > 0)).toBe(true)
  })

  it('builds facilities with systems, price lists in the v3 shape, and territories of counties', () => {
    const hospitals = ds.facilities.filter((f) => f.facility_type === 'hospital' || f.facility_type === 'critical_access')
    expect(hospitals.length).toBe(Math.round(4_730 * 0.012) + Math.round(1_370 * 0.012))
    const systemIds = new Set(ds.healthSystems.map((s) => s.id))
    for (const f of ds.facilities) if (f.health_system_id !== null) expect(systemIds.has(f.health_system_id)).toBe(true)
    const affiliated = hospitals.filter((h) => h.health_system_id !== null).length / hospitals.length
    expect(affiliated).toBeGreaterThan(0.45)
    const prices = ds.facilityPrices(hospitals[0] ?? ds.facilities[0]!)
    expect(prices.some((p) => p.payer_name === null && p.discounted_cash > 0)).toBe(true)
    expect(
      prices
        .filter((p) => p.payer_name !== null)
        .every((p) => p.negotiated_dollar !== null || (p.median_amount !== null && p.p10_amount !== null && p.p90_amount !== null)),
    ).toBe(true)
    const territories = ds.salesTerritories()
    expect(territories.map((t) => t.name)).toEqual(
      expect.arrayContaining(['Alabama', 'Georgia West', 'Georgia East', 'California 1', 'California 5']),
    )
    const all = territories.flatMap((t) => t.county_fips)
    expect(new Set(all).size).toBe(all.length)
  })
})

describe('codes the generator writes', () => {
  it('exist in the reference sets the loader ships (claims reference them)', async () => {
    const icd = new Set(icd10StarterCodes().map((c) => c.code))
    const procedures = new Set(procedureCodes().map((p) => p.code))
    const taxonomies = new Set(specialties().map((s) => s.code))
    const bundles = [...(await take(ds.claims(0, 1500))), ...Array.from({ length: 200 }, (_, i) => ds.snakebite(i).claim)]
    for (const b of bundles) {
      for (const d of b.diagnoses) expect(icd.has(d.icd10_code), d.icd10_code).toBe(true)
      for (const l of b.procedures) expect(procedures.has(l.procedure_code), l.procedure_code).toBe(true)
    }
    for (const c of CONDITIONS) for (const [code] of c.icd10) expect(icd.has(code), code).toBe(true)
    for (const p of await take(ds.providers(0, 500))) expect(taxonomies.has(p.primary_taxonomy_code), p.primary_taxonomy_code).toBe(true)
  })
})

describe('COPY encoders', () => {
  it('escapes text format correctly', () => {
    expect(copyTextRow(['a\tb', 'line\nbreak', 'back\\slash', null, 3.5, true, ['x', 'y z'], { a: 1 }])).toBe(
      'a\\tb\tline\\nbreak\tback\\\\slash\t\\N\t3.5\tt\t{x,"y z"}\t{"a":1}\n',
    )
    expect(arrayLiteral(['', 'NULL', 'q"uote', null])).toBe('{"","NULL","q\\"uote",NULL}')
    expect(copyTextRow(['cr\r', undefined, -0, false, new Date(Date.UTC(2025, 0, 2)), ['b\\s'], { k: 'v\t' }, ''])).toBe(
      'cr\\r\t\\N\t0\tf\t2025-01-02T00:00:00.000Z\t{"b\\\\\\\\s"}\t{"k":"v\\\\t"}\t\n',
    )
    expect(copyTextRow([])).toBe('\n')
    expect(() => copyTextRow([1, Number.NaN])).toThrow(/cannot COPY the number NaN/)
  })
  it('quotes CSV fields only when needed and tells NULL from empty', () => {
    expect(csvRow(['plain', 'a,b', 'say "hi"', null, '', ' pad'])).toBe('plain,"a,b","say ""hi""",,""," pad"\n')
  })
  it('streams rows in chunks, columns in order', async () => {
    const rows = [
      { id: 1, name: 'x' },
      { id: 2, name: null },
    ]
    const chunks = await take(encodeCopy(rows, ['name', 'id'], { chunkSize: 4 }))
    expect(chunks.join('')).toBe('x\t1\n\\N\t2\n')
  })
})
