import { Badge, Paper, Table, Text, Title } from '@mantine/core'
import type { PayerRate } from '@citrus/contracts'
import { formatCurrency } from '../../../lib/cost-format'

export const PAYER_RATES_TEXT = {
  title: "Payers' negotiated rates",
  help: "From the payers' Transparency-in-Coverage files: each rate as the payer publishes it. A percentage or a per diem is a contract term, not a price of the service.",
  /** the carrier's price per code (carrier_rate_by_procedure, docs/decisions/0081) */
  carrierRates: (carrier: string) => `${carrier}'s price (the mean of its dollar rates; what Care Connect ranks with):`,
} as const

/** A payer-file rate in its own unit (issue 37): dollars, dollars per day, or a percentage, never converted. */
export function formatPayerRate(rate: Pick<PayerRate, 'negotiated_rate' | 'unit'>): string {
  if (rate.unit === 'percent') return `${rate.negotiated_rate}%`
  if (rate.unit === 'usd_per_day') return `${formatCurrency(rate.negotiated_rate)} per day`
  return formatCurrency(rate.negotiated_rate)
}

export function PayerRatesSection({
  rates,
  carrier = null,
  carrierRates,
}: {
  rates: readonly PayerRate[]
  /** the page's payment perspective, and its carrier rate per code (carrier_rate_by_procedure) */
  carrier?: string | null
  carrierRates?: Record<string, number> | undefined
}) {
  const priced = Object.entries(carrierRates ?? {})
  return (
    <Paper withBorder radius="lg" p="md" data-testid="payer-rates">
      <Title order={4}>{PAYER_RATES_TEXT.title}</Title>
      <Text size="xs" c="dimmed" mb="sm">
        {PAYER_RATES_TEXT.help}
      </Text>
      {carrier && priced.length > 0 && (
        <Text size="sm" mb="sm" data-testid="carrier-rates">
          {PAYER_RATES_TEXT.carrierRates(carrier)} {priced.map(([code, amount]) => `${code} ${formatCurrency(amount)}`).join(' · ')}
        </Text>
      )}
      <Table.ScrollContainer minWidth={640}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Code</Table.Th>
              <Table.Th>Payer · plan</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Rate</Table.Th>
              <Table.Th>Billing class · setting</Table.Th>
              <Table.Th>Expires</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rates.map((r, i) => (
              <Table.Tr key={i}>
                <Table.Td>
                  {r.billing_code_type} {r.billing_code}
                  {r.billing_code_modifiers.length > 0 ? ` (${r.billing_code_modifiers.join(', ')})` : ''}
                </Table.Td>
                <Table.Td>
                  {r.payer_name}
                  {r.plan_name ? ` · ${r.plan_name}` : ''}
                </Table.Td>
                <Table.Td>
                  <Badge variant="light">{r.negotiated_type}</Badge>
                  {r.negotiation_arrangement !== 'ffs' ? ` ${r.negotiation_arrangement}` : ''}
                </Table.Td>
                <Table.Td data-testid="payer-rate">{formatPayerRate(r)}</Table.Td>
                <Table.Td>
                  {r.billing_class} · {r.setting}
                </Table.Td>
                <Table.Td>{r.expiration_date}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  )
}
