import type { PayerRate } from '@citrus/contracts'
import { MantineProvider } from '@mantine/core'
import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { PayerRatesSection, formatPayerRate } from './payer-rates'

const rate = (over: Partial<PayerRate>): PayerRate => ({
  payer_name: 'Comprehensive Health Issuer',
  plan_name: 'Plan D PPO',
  billing_code_type: 'CPT',
  billing_code: '97110',
  name: 'Outpatient Physical Therapy',
  negotiation_arrangement: 'ffs',
  negotiated_type: 'negotiated',
  negotiated_rate: 150,
  unit: 'usd',
  setting: 'outpatient',
  billing_class: 'professional',
  service_codes: ['11'],
  billing_code_modifiers: [],
  additional_information: null,
  expiration_date: '2024-12-31',
  tin: '12-3456789',
  source_file: 'in-network-rates-all-negotiated-types-sample.json',
  last_updated_on: '2024-01-15',
  ...over,
})

describe("the cost page's payer rates (issue 37)", () => {
  it('shows a percentage and a per diem as what they are, dollars as dollars', () => {
    expect(formatPayerRate({ negotiated_rate: 65, unit: 'percent' })).toBe('65%')
    expect(formatPayerRate({ negotiated_rate: 5500, unit: 'usd_per_day' })).toBe('$5,500.00 per day')
    expect(formatPayerRate({ negotiated_rate: 123.45, unit: 'usd' })).toBe('$123.45')
    render(
      <MantineProvider>
        <PayerRatesSection
          rates={[
            rate({ negotiated_type: 'percentage', negotiated_rate: 65, unit: 'percent' }),
            rate({
              billing_code_type: 'RC',
              billing_code: '0200',
              negotiated_type: 'per diem',
              negotiated_rate: 5500,
              unit: 'usd_per_day',
            }),
            rate({ billing_code: '27447', negotiated_rate: 123.45, billing_code_modifiers: ['AS'] }),
          ]}
        />
      </MantineProvider>,
    )
    expect(screen.getAllByTestId('payer-rate').map((td) => td.textContent)).toEqual(['65%', '$5,500.00 per day', '$123.45'])
    expect(screen.getByText('CPT 27447 (AS)')).toBeTruthy()
  })

  it("shows the carrier's price per code that Care Connect ranks with (docs/decisions/0081)", () => {
    render(
      <MantineProvider>
        <PayerRatesSection rates={[rate({ billing_code: '27447' })]} carrier="Acme" carrierRates={{ '27447': 121.95 }} />
      </MantineProvider>,
    )
    expect(screen.getByTestId('carrier-rates').textContent).toBe(
      "Acme's price (the mean of its dollar rates; what Care Connect ranks with): 27447 $121.95",
    )
  })

  it('shows no carrier price without a carrier', () => {
    render(
      <MantineProvider>
        <PayerRatesSection rates={[rate({})]} carrierRates={{ '97110': 150 }} />
      </MantineProvider>,
    )
    expect(screen.queryByTestId('carrier-rates')).toBeNull()
  })
})
