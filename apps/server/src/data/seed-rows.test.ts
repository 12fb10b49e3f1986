import { copyTextRow, SyntheticDataset } from '@citrus/data-kit'
import { describe, expect, it } from 'vitest'
import { DIAGNOSIS_COLUMNS, LINE_COLUMNS, PHARMACY_COLUMNS, claimText, claimValues, diagnosisText, fillText, lineText, patientTexts, pick } from './seed-rows.ts'

describe('generator threads’ COPY text (seed-rows)', () => {
  const ds = new SyntheticDataset({ seed: 7, scale: 'ci' })
  const facilityIdByNpi = new Map(ds.facilities.map((f) => [f.npi, f.id]))

  it('writes each claim, diagnosis, line and fill exactly as copyTextRow of its column values', () => {
    let facilityClaims = 0
    let fills = 0
    for (let i = 0; i < 400; i++) {
      const patient = ds.patient(i)
      for (const bundle of ds.claimsOfPatient(patient)) {
        expect(claimText(bundle, facilityIdByNpi)).toBe(copyTextRow(claimValues(bundle, facilityIdByNpi)))
        if (bundle.claim.facility_npi) facilityClaims++
        for (const d of bundle.diagnoses) expect(diagnosisText(d)).toBe(copyTextRow(pick(d, DIAGNOSIS_COLUMNS)))
        for (const l of bundle.procedures) expect(lineText(l)).toBe(copyTextRow(pick(l, LINE_COLUMNS)))
      }
      for (const r of ds.pharmacyOfPatient(patient)) {
        expect(fillText(r)).toBe(copyTextRow(pick(r, PHARMACY_COLUMNS)))
        fills++
      }
    }
    // the sample covers the nullable columns both ways
    expect(facilityClaims).toBeGreaterThan(0)
    expect(fills).toBeGreaterThan(0)
    const snakebite = ds.snakebite(0)
    expect(claimText(snakebite.claim, facilityIdByNpi)).toBe(copyTextRow(claimValues(snakebite.claim, facilityIdByNpi)))
    if (snakebite.pharmacy) expect(fillText(snakebite.pharmacy)).toBe(copyTextRow(pick(snakebite.pharmacy, PHARMACY_COLUMNS)))
  })

  it('counts the rows of a patient’s texts', () => {
    const texts = patientTexts(ds, 11, facilityIdByNpi)
    const lines = (text: string) => (text === '' ? 0 : text.split('\n').length - 1)
    expect(lines(texts.claims)).toBe(texts.claimRows)
    expect(lines(texts.diagnoses)).toBe(texts.diagnosisRows)
    expect(lines(texts.lines)).toBe(texts.lineRows)
    expect(lines(texts.fills)).toBe(texts.fillRows)
    expect(texts.claimRows).toBe(ds.claimsOfPatient(ds.patient(11)).length)
  })
})
