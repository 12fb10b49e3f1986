import type { HcoCost } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import {
  affordabilityBarColor,
  affordabilityScores,
  formFromQuery,
  formQuery,
  formatCurrency,
  formatDistance,
  formatPatientRate,
  formatWholeDollars,
  percentOfList,
  procedureError,
  resultsUrl,
  sortCosts,
  zipError,
} from './price-check'

const hco = (name: string, patient: number, list: number, dist: number): HcoCost => ({
  hco_name: name,
  hco_npi: null,
  hco_dist_in_m: dist,
  addr_line_1: '1 Main St',
  city: 'Town',
  state: 'TX',
  zip_code: '77004',
  phone_number: null,
  cost_bundle: {
    avg_list_rate: list,
    avg_patient_rate: patient,
    avg_insurer_rate: null,
    avg_negotiated_rate: null,
    median_amount: patient,
    p10_amount: patient,
    p90_amount: patient,
    methodology: null,
    avg_patient_rate_deductible_met: null,
    avg_insurer_rate_deductible_met: null,
  },
})

describe('Price Check rules (spec 3 §5, §9)', () => {
  it('accepts 5-digit ZIPs, optionally ZIP+4; anything else gets the documented message', () => {
    expect(zipError('77004')).toBeNull()
    expect(zipError('77004-1234')).toBeNull()
    for (const bad of ['', '7700', '770041', 'abcde', '77004-12']) expect(zipError(bad)).toBe('Please enter a valid 5-digit ZIP code')
  })

  it('needs a procedure: a selection, or codes plus a name', () => {
    expect(procedureError(null)).toBe('Please select a procedure')
    expect(procedureError({ name: 'MRI', cpt_codes: [] })).toBe('Please select a procedure')
    expect(procedureError({ name: ' ', cpt_codes: ['70551'] })).toBe('Please select a procedure')
    expect(procedureError({ name: 'MRI', cpt_codes: ['70551'] })).toBeNull()
  })

  it('formats cards with two decimals, the bundle in whole dollars, FREE at 0 and the rounded % of list', () => {
    expect(formatCurrency(1234.5)).toBe('$1,234.50')
    expect(formatWholeDollars(1234.5)).toBe('$1,235')
    expect(formatPatientRate(0)).toBe('FREE')
    expect(formatPatientRate(12)).toBe('$12.00')
    expect(percentOfList(25, 200)).toBe(13)
    expect(percentOfList(1, 3)).toBe(33)
    expect(percentOfList(5, 0)).toBeNull()
  })

  it('colours affordability above 80 green, above 60 amber, otherwise red', () => {
    expect(affordabilityBarColor(81)).toBe('green')
    expect(affordabilityBarColor(80)).toBe('yellow')
    expect(affordabilityBarColor(61)).toBe('yellow')
    expect(affordabilityBarColor(60)).toBe('red')
  })

  it('shows distances under 0.1 mile in feet, else miles with one decimal', () => {
    expect(formatDistance(100)).toBe('328 ft')
    expect(formatDistance(16093.44)).toBe('10.0 mi')
  })

  it('sorts ascending by patient cost (default), list cost or distance', () => {
    const rows = [hco('A', 30, 100, 500), hco('B', 10, 300, 900), hco('C', 20, 200, 100)]
    expect(sortCosts(rows, 'patient_cost').map((r) => r.hco_name)).toEqual(['B', 'C', 'A'])
    expect(sortCosts(rows, 'list_cost').map((r) => r.hco_name)).toEqual(['A', 'C', 'B'])
    expect(sortCosts(rows, 'distance').map((r) => r.hco_name)).toEqual(['C', 'A', 'B'])
    const scores = affordabilityScores(rows)
    expect(rows.map((r) => scores.get(r))).toEqual([33, 100, 67])
  })

  it('writes the search to the results URL and the form query to the address bar', () => {
    const procedure = { name: 'Brain MRI', cpt_codes: ['70551', '70553'] }
    expect(resultsUrl({ zip: '77004', insurance: 'Aetna', procedure })).toBe(
      '/price-check/results?zip_code=77004&insurance=Aetna&procedure_codes_csv=70551%2C70553',
    )
    expect(resultsUrl({ zip: '77004', insurance: null, procedure })).toBe(
      '/price-check/results?zip_code=77004&procedure_codes_csv=70551%2C70553',
    )
    const query = formQuery({ zip: '77004', insurance: 'Aetna', procedure })
    expect(query.toString()).toBe('zip=77004&insurance=Aetna&codes=70551%2C70553&procedure=Brain+MRI')
    expect(formFromQuery(query)).toEqual({ zip: '77004', insurance: 'Aetna', procedure })
  })
})
