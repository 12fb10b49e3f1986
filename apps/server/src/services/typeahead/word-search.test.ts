import { describe, expect, it } from 'vitest'
import { SYNONYMS, searchTokens, synonymQueries } from './word-search.ts'

describe('searchTokens', () => {
  it('splits a query into the words the simple text-search configuration indexes', () => {
    expect(searchTokens('Type 2 Diabetes')).toEqual(['type', '2', 'diabetes'])
    expect(searchTokens('  knee,  osteoarthritis ')).toEqual(['knee', 'osteoarthritis'])
    expect(searchTokens('E11.9')).toEqual(['e11', '9'])
  })

  it('keeps inner hyphens, as the parser does for x-ray and covid-19, and drops outer ones', () => {
    expect(searchTokens('X-ray chest')).toEqual(['x-ray', 'chest'])
    expect(searchTokens('covid-19')).toEqual(['covid-19'])
    expect(searchTokens('post- -traumatic')).toEqual(['post', 'traumatic'])
  })

  it('removes accents and ignores punctuation, quotes and operators of the tsquery syntax', () => {
    expect(searchTokens('Ménière’s disease')).toEqual(['meniere', 's', 'disease'])
    expect(searchTokens("o'brien & (cancer) | !:*")).toEqual(['o', 'brien', 'cancer'])
    expect(searchTokens('')).toEqual([])
    expect(searchTokens(' ... ')).toEqual([])
  })

  it('takes at most 8 words of at most 40 characters', () => {
    expect(searchTokens('a b c d e f g h i j')).toHaveLength(8)
    expect(searchTokens('x'.repeat(60))[0]).toHaveLength(40)
  })
})

describe('synonymQueries', () => {
  it('expands clinical abbreviations into tsquery alternatives, aligned with the tokens', () => {
    expect(synonymQueries('icd10', ['copd', 'knee'])).toEqual(["('chronic' & 'obstructive' & 'pulmonary')", ''])
    expect(synonymQueries('icd10', ['htn'])).toEqual(["('hypertension') | ('hypertensive')"])
    expect(synonymQueries('procedure', ['ekg'])).toEqual(["('ecg') | ('electrocardiogram')"])
  })

  it('expands only within its domain and never from inherited object keys', () => {
    expect(synonymQueries('procedure', ['copd'])).toEqual([''])
    expect(synonymQueries('icd10', ['constructor', 'tostring', '__proto__'])).toEqual(['', '', ''])
  })

  it('holds only lower-case words that the tokenizer would produce', () => {
    for (const domain of ['icd10', 'procedure'] as const) {
      for (const [abbreviation, expansions] of Object.entries(SYNONYMS[domain])) {
        expect(searchTokens(abbreviation)).toEqual([abbreviation])
        for (const words of expansions) for (const word of words) expect(searchTokens(word), `${abbreviation}: ${word}`).toEqual([word])
      }
    }
  })
})
