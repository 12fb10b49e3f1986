import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, useTestApp } from '../../../../../test/helpers.ts'

type Code = { code: string; description: string; long_description: string; parent_code: string | null }
type Procedure = { name: string; cpt_codes: string[]; description: string }
type Specialty = { code: string; description: string; genre: string; score: number }

/** A look-up's answer that must hold something: a loop over an empty answer would assert nothing. */
function nonEmpty<T>(found: T[]): T[] {
  expect(found.length).toBeGreaterThan(0)
  return found
}

describe('typeahead and insurers', () => {
  const ctx = useTestApp({}, { dataset: true })
  let staff: string
  let member: string

  beforeAll(async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['user', 'member'], products: [{ product_group: 'CARE_SELECT' }] })
    staff = await loginTokenFor(users[0]!, company.company_name)
    member = await loginTokenFor(users[1]!, company.company_name)
  })

  const get = (path: string, query: Record<string, string | number> = {}, token: string | null = staff) => {
    const call = request(ctx.app.server).get(`/api${path}`).query(query)
    return token ? call.set('Authorization', `Bearer ${token}`) : call
  }
  const codes = async (path: string, query: string, limit?: number) => {
    const response = await get(path, limit === undefined ? { query } : { query, limit })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    return response.body.codes as Code[]
  }

  it('needs a signed-in caller: 401 in the error envelope', async () => {
    for (const path of [
      '/typeahead/omni',
      '/typeahead/icd10-fuzzy',
      '/typeahead/cpt-fuzzy',
      '/typeahead/procedure-typeahead',
      '/insurers/',
    ]) {
      const response = await get(path, { query: 'knee' }, null)
      expect(response.status, path).toBe(401)
      expect(response.body).toMatchObject({ message: 'Authentication required', code: 'UNAUTHORIZED', status: 401 })
    }
  })

  describe('GET /typeahead/icd10-fuzzy', () => {
    it('puts the exact code first, with or without the dot and in any case, in the documented shape', async () => {
      for (const query of ['E11.9', 'e119', 'E11.9 ']) {
        const found = await codes('/typeahead/icd10-fuzzy', query)
        expect(found[0], query).toEqual({
          code: 'E11.9',
          description: 'Type 2 diabetes mellitus without complications',
          long_description: 'Type 2 diabetes mellitus without complications',
          parent_code: 'E11',
        })
      }
    })

    it('matches code prefixes after the exact code: a category finds its sub-codes', async () => {
      const found = await codes('/typeahead/icd10-fuzzy', 'E11', 20)
      expect(found[0]!.code).toBe('E11')
      expect(found.length).toBe(20)
      for (const c of found) expect(c.code.startsWith('E11')).toBe(true)
    })

    it('tolerates typos: diabtes finds type 2 diabetes, hypertenshun finds essential hypertension', async () => {
      const diabetes = await codes('/typeahead/icd10-fuzzy', 'diabtes', 10)
      expect(diabetes.length).toBeGreaterThan(0)
      expect(diabetes.some((c) => /type 2 diabetes/i.test(c.description))).toBe(true)
      for (const c of diabetes) expect(`${c.description} ${c.long_description}`.toLowerCase()).toContain('diabet')
      const hypertension = await codes('/typeahead/icd10-fuzzy', 'hypertenshun', 10)
      expect(hypertension.map((c) => c.code)).toContain('I10')
      const snake = await codes('/typeahead/icd10-fuzzy', 'rattlesnake venom', 5)
      expect(snake[0]!.code.startsWith('T63.01')).toBe(true)
    })

    it('expands clinical abbreviations and completes the word being typed', async () => {
      expect((await codes('/typeahead/icd10-fuzzy', 'copd', 5))[0]!.code).toMatch(/^J44/)
      for (const c of nonEmpty(await codes('/typeahead/icd10-fuzzy', 'chf', 5)))
        expect(c.long_description.toLowerCase()).toContain('heart failure')
      for (const c of nonEmpty(await codes('/typeahead/icd10-fuzzy', 'osteoarth kn', 5)))
        expect(c.long_description.toLowerCase()).toMatch(/osteoarthritis.*\bkn|\bkn.*osteoarthritis/)
    })

    it('needs every typed word: words as typed rank above corrected ones, and the most claimed code leads', async () => {
      const found = await codes('/typeahead/icd10-fuzzy', 'type 2 diabtes', 10)
      expect(found.length).toBe(10)
      for (const c of found) expect(c.long_description.toLowerCase()).toMatch(/type 2 diabet/)
      expect(found[0]!.code).toBe('E11.9')
      for (const c of nonEmpty(await codes('/typeahead/icd10-fuzzy', 'asthma', 10)))
        expect(c.long_description.toLowerCase()).toContain('asthma')
      expect(await codes('/typeahead/icd10-fuzzy', 'diabetes qqqzzx')).toEqual([])
      // a code is not also read as words ('E11.9' is not 'e11' and '9 weeks')
      for (const c of nonEmpty(await codes('/typeahead/icd10-fuzzy', 'E11.9', 10)))
        expect(c.code.replace('.', '').startsWith('E119')).toBe(true)
    })

    it('respects the limit (default 10)', async () => {
      expect(await codes('/typeahead/icd10-fuzzy', 'E')).toHaveLength(10)
      expect(await codes('/typeahead/icd10-fuzzy', 'E', 3)).toHaveLength(3)
      expect(await codes('/typeahead/icd10-fuzzy', 'zzzzqqqq')).toEqual([])
    })
  })

  describe('GET /typeahead/cpt-fuzzy', () => {
    it('exact code first, then prefixes, with our plain-language names', async () => {
      const exact = await codes('/typeahead/cpt-fuzzy', '99213')
      expect(exact[0]).toEqual({
        code: '99213',
        description: 'Returning patient office visit, moderate',
        long_description: expect.any(String),
        parent_code: null,
      })
      const prefix = await codes('/typeahead/cpt-fuzzy', '9921', 50)
      expect(prefix.length).toBeGreaterThanOrEqual(5)
      for (const c of prefix) expect(c.code.startsWith('9921')).toBe(true)
      const hcpcs = await codes('/typeahead/cpt-fuzzy', 'g0439')
      expect(hcpcs[0]!.code).toBe('G0439')
    })

    it('expands abbreviations: ekg finds the heart tracing, tka the knee replacement', async () => {
      expect((await codes('/typeahead/cpt-fuzzy', 'ekg', 5)).map((c) => c.code)).toContain('93000')
      expect((await codes('/typeahead/cpt-fuzzy', 'tka', 5))[0]!.code).toBe('27447')
      expect((await codes('/typeahead/cpt-fuzzy', 'xray chest', 5))[0]!.code).toBe('71046')
    })

    it('finds procedures by words despite typos', async () => {
      const found = await codes('/typeahead/cpt-fuzzy', 'knee replacment', 10)
      expect(found.map((c) => c.code)).toContain('27447')
      const visits = await codes('/typeahead/cpt-fuzzy', 'ofice visit', 20)
      expect(visits.map((c) => c.code)).toContain('99213')
    })
  })

  describe('GET /typeahead/procedure-typeahead', () => {
    const procedures = async (query: string, limit?: number, token = staff) => {
      const response = await get('/typeahead/procedure-typeahead', limit === undefined ? { query } : { query, limit }, token)
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      return response.body.procedures as Procedure[]
    }

    it('finds a shoppable procedure by a code prefix: 2744 finds knee replacement (27447)', async () => {
      const found = await procedures('2744')
      expect(found[0]).toEqual({ name: 'Knee replacement', cpt_codes: ['27447'], description: expect.any(String) })
    })

    it('finds procedures by name with typos and ranks exact codes first', async () => {
      expect((await procedures('colonoscpy')).map((p) => p.name)).toContain('Colonoscopy')
      expect((await procedures('45378'))[0]!.name).toBe('Colonoscopy')
      // a code that is not a shoppable procedure of its own is still offered as a single-code procedure
      const single = await procedures('99214')
      expect(single[0]).toMatchObject({ cpt_codes: ['99214'] })
    })

    it('answers members (Price Check) and returns 10 procedures by default', async () => {
      const found = await procedures('a', undefined, member)
      expect(found.length).toBeLessThanOrEqual(10)
      expect(found.length).toBeGreaterThan(0)
      for (const p of found) expect(Object.keys(p).sort()).toEqual(['cpt_codes', 'description', 'name'])
    })
  })

  describe('GET /typeahead/omni', () => {
    it('lists up to 100 specialties for an empty query, the most common first', async () => {
      const response = await get('/typeahead/omni', { query: '', limit: 100 })
      expect(response.status).toBe(200)
      const suggestions = response.body.suggestions as Specialty[]
      expect(suggestions.length).toBeGreaterThan(30)
      expect(suggestions.length).toBeLessThanOrEqual(100)
      for (const s of suggestions) {
        expect(s.genre).toBe('SPECIALTY')
        expect(s.code).toMatch(/^[0-9]{3}[0-9A-Z]{6}X$/)
        expect(s.score).toBeGreaterThanOrEqual(0)
        expect(s.score).toBeLessThanOrEqual(1)
      }
      // registered nurses and family nurse practitioners are the most numerous clinicians in the directory
      expect(suggestions.slice(0, 5).map((s) => s.code)).toEqual(expect.arrayContaining(['363LF0000X']))
      expect((await get('/typeahead/omni')).body.suggestions).toHaveLength(10)
    })

    it('ranks an exact taxonomy code first (score 1) and tolerates typos in names', async () => {
      const exact = (await get('/typeahead/omni', { query: '207RE0101X' })).body.suggestions as Specialty[]
      expect(exact[0]).toEqual({
        code: '207RE0101X',
        description: 'Endocrinology, Diabetes & Metabolism Physician',
        genre: 'SPECIALTY',
        score: 1,
      })
      const typo = (await get('/typeahead/omni', { query: 'famly medicine', limit: 5 })).body.suggestions as Specialty[]
      expect(typo[0]!.code).toBe('207Q00000X')
      expect(typo[0]!.score).toBeLessThan(1)
      const cardio = (await get('/typeahead/omni', { query: 'cardio', limit: 5 })).body.suggestions as Specialty[]
      expect(cardio.map((s) => s.code)).toContain('207RC0000X')
    })
  })

  describe('validation', () => {
    it('answers 400 in the error envelope for a bad limit or a missing query', async () => {
      const cases: [string, Record<string, string | number>, string][] = [
        ['/typeahead/icd10-fuzzy', { query: 'E11', limit: 0 }, 'querystring.limit'],
        ['/typeahead/icd10-fuzzy', { query: 'E11', limit: 101 }, 'querystring.limit'],
        ['/typeahead/cpt-fuzzy', { query: 'knee', limit: 'ten' }, 'querystring.limit'],
        ['/typeahead/cpt-fuzzy', {}, 'querystring.query'],
        ['/typeahead/procedure-typeahead', { query: '   ' }, 'querystring.query'],
        ['/typeahead/omni', { limit: 1000 }, 'querystring.limit'],
        ['/typeahead/omni', { query: 'x'.repeat(101) }, 'querystring.query'],
      ]
      for (const [path, query, field] of cases) {
        const response = await get(path, query)
        expect(response.status, `${path} ${JSON.stringify(query)}`).toBe(400)
        expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 })
        expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(field)
      }
    })
  })

  describe('GET /insurers/', () => {
    it('lists the insurer names, sorted, for staff and members', async () => {
      for (const token of [staff, member]) {
        const response = await get('/insurers/', {}, token)
        expect(response.status).toBe(200)
        const insurers = response.body.insurers as string[]
        expect(insurers).toEqual(expect.arrayContaining(['Aetna', 'UnitedHealthcare', 'Cigna Healthcare', 'Medicare']))
        expect([...insurers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(insurers)
        expect(new Set(insurers).size).toBe(insurers.length)
      }
    })
  })
})
