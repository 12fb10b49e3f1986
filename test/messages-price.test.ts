import { INSURER_MESSAGES, PRICE_CHECK_MESSAGES, priceCheckEmptyMessage } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { PROVIDER_COST_TEXT } from '../apps/web/src/features/provider-cost-transparency/routes/provider-cost-transparency.tsx'
import { PRICE_CHECK_TEXT } from '../apps/web/src/features/price-check/components/facility-cost-card.tsx'
import { SORT_LABELS } from '../apps/web/src/features/price-check/utils/price-check.ts'

/** Price Check's texts of spec 3 §5, §8 and §9, pinned as literal text (issue 12). */
describe('Price Check messages', () => {
  it('pins the validation messages of spec 3 §5', () => {
    expect(PRICE_CHECK_MESSAGES.invalidZip).toBe('Please enter a valid 5-digit ZIP code')
    expect(PRICE_CHECK_MESSAGES.procedureRequired).toBe('Please select a procedure')
  })

  it('pins the error catalogue of spec 3 §8', () => {
    expect(PRICE_CHECK_MESSAGES.insurersFailed).toBe('Failed to load insurers')
    expect(INSURER_MESSAGES.priceCheckFailed).toBe('Failed to load insurers')
    expect(PRICE_CHECK_MESSAGES.costFetchFailed).toBe('Failed to fetch cost data. Please try again later.')
  })

  it('pins the results texts of spec 3 §2.6 and §9', () => {
    expect(PRICE_CHECK_MESSAGES.emptyTitle).toBe('No Healthcare Providers Found')
    expect(PRICE_CHECK_MESSAGES.tryNewSearch).toBe('Try New Search')
    expect(PRICE_CHECK_MESSAGES.removeInsuranceFilter).toBe('Remove Insurance Filter')
    expect(PRICE_CHECK_MESSAGES.free).toBe('FREE')
    expect(PRICE_CHECK_MESSAGES.insurancePays).toBe('Insurance Pays')
    expect(PRICE_CHECK_MESSAGES.beta).toBe('Beta')
    expect(priceCheckEmptyMessage('Brain MRI', '77004', 'Aetna')).toBe(
      "We couldn't find any healthcare providers offering Brain MRI near 77004 that accept Aetna.",
    )
    expect(priceCheckEmptyMessage('Brain MRI', '77004', null)).toBe(
      "We couldn't find any healthcare providers offering Brain MRI near 77004.",
    )
    expect(SORT_LABELS).toEqual({ patient_cost: 'Patient Cost', list_cost: 'List Price', distance: 'Distance' })
  })

  it('pins the server messages of bad input', () => {
    expect(PRICE_CHECK_MESSAGES.unknownCodes(['ZZZZ9'])).toBe('Unknown procedure code: ZZZZ9')
    expect(PRICE_CHECK_MESSAGES.unknownCodes(['A', 'B'])).toBe('Unknown procedure codes: A, B')
    expect(PRICE_CHECK_MESSAGES.radiusPositive).toBe('radius_in_m must be a positive number of metres')
    expect(PRICE_CHECK_MESSAGES.radiusTooLarge).toBe('radius_in_m must be at most 200000')
    expect(PRICE_CHECK_MESSAGES.codesRequired).toBe('procedure_codes_csv must name at least one procedure code')
    expect(PRICE_CHECK_MESSAGES.malformedCode).toBe('procedure_codes_csv must be CPT or HCPCS codes separated by commas')
    expect(PRICE_CHECK_MESSAGES.unknownZip('00000')).toBe('ZIP code 00000 is not a known US ZIP code')
    expect(PRICE_CHECK_MESSAGES.providerNotFound('0000000000')).toBe('No provider with NPI 0000000000')
  })

  it('pins the deductible texts of the facility cards (docs/decisions/0048)', () => {
    expect(PRICE_CHECK_TEXT).toEqual({
      beforeDeductible: 'You pay (deductible not met)',
      deductibleMet: 'Once your deductible is met:',
      insurerBeforeDeductible: 'deductible not met',
      planDesigns: "Averages over the carrier's plan designs",
    })
  })

  it('pins the provider cost page texts', () => {
    expect(PROVIDER_COST_TEXT).toEqual({
      back: 'Back',
      range: 'Estimated cost range',
      visitTypes: 'Visit types',
      compare: 'Compare',
      share: 'Share',
      print: 'Print',
      noClaims: 'No claims on record for this provider.',
      loadFailed: 'Failed to load provider cost details. Please try again later.',
      shareTitle: 'Share this page',
      shareHelp: 'Anyone with this link can view this provider cost page (and nothing else) for 30 days.',
      shareFailed: 'Failed to create the shareable link. Please try again.',
      carrier: 'Carrier',
      allPayers: 'All payers',
      facility: 'Facility',
      paidClaims: 'Paid claims',
      paidClaimsHelp: 'What was paid on the claims on record, not a quote.',
      patientPaid: 'Patient paid (claims)',
      listedPrice: 'Listed price',
      listedPriceHelp: "From the facility's published price list, priced as Price Check prices it.",
      listPrice: 'List Price',
      youPay: 'You pay (price list)',
      youPayBeforeDeductible: 'You pay (price list, deductible not met)',
      deductibleMet: 'Once your deductible is met:',
      notListed: "This facility's price list does not price these codes in this perspective.",
      noFacility: 'No affiliated facility with a price list.',
      notInSearch: 'Not among the facilities of that search.',
      cash: 'Cash price',
      peerComparison: 'Compares mean negotiated amounts on claims with those of its peers (not the Price Check ranking).',
      unitPrice: 'per unit (Care Connect)',
      facilityRate: 'Facility negotiated rate (price list)',
    })
  })
})
