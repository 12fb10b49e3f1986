import { Anchor, Badge, Group, Paper, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { IconMapPin, IconPhone } from '@tabler/icons-react'
import { formatRange, formatUsPhone, methodologyLabel, type HcoCost } from '@citrus/contracts'
import { Link } from 'react-router'
import {
  PRICE_CHECK_MESSAGES,
  affordabilityBarColor,
  facilityCostPageUrl,
  formatCurrency,
  formatDistance,
  formatPatientRate,
  percentOfList,
} from '../utils/price-check'

/**
 * One facility of the results (spec 3 §9): currency with two decimals, FREE at a patient rate of 0, the
 * patient rate as a rounded percentage of the list price, Insurance Pays only when the insurer rate is not
 * null, the estimate range (10th-90th percentile) and an affordability bar coloured by spec 3 §9. With a carrier
 * the patient figure assumes the deductible is not met yet, and the figure once it is shows beneath
 * (docs/decisions/0048). The name links to the facility's cost page (its organisation NPI; 0049), with the
 * carrier kept.
 */
/** Texts of the deductible figures (docs/decisions/0048). */
export const PRICE_CHECK_TEXT = {
  beforeDeductible: 'You pay (deductible not met)',
  deductibleMet: 'Once your deductible is met:',
  /** beside Insurance Pays: its figure is for the same state as the patient's (0048) */
  insurerBeforeDeductible: 'deductible not met',
  /** the figures are means over the carrier's plan designs, weighted by enrollment (0048) */
  planDesigns: "Averages over the carrier's plan designs",
} as const

export function FacilityCostCard({
  hco,
  affordability,
  insurance,
  search,
}: {
  hco: HcoCost
  affordability: number
  insurance?: string | null
  /** the search's codes and ZIP, carried to the cost page's listed price (docs/decisions/0075) */
  search?: { codes: string; zip: string }
}) {
  const bundle = hco.cost_bundle
  const percent = percentOfList(bundle.avg_patient_rate, bundle.avg_list_rate)
  const costPage = hco.hco_npi ? facilityCostPageUrl(hco.hco_npi, { insurance, ...search }) : null
  return (
    <Paper withBorder radius="lg" p="md" data-testid="facility-cost-card">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <div>
            <Title order={4}>
              {costPage ? (
                <Anchor component={Link} to={costPage} inherit data-testid="facility-cost-link">
                  {hco.hco_name}
                </Anchor>
              ) : (
                hco.hco_name
              )}
            </Title>
            <Group gap={6} c="dimmed">
              <IconMapPin size={14} />
              <Text size="sm">
                {hco.addr_line_1}, {hco.city}, {hco.state} {hco.zip_code} · {formatDistance(hco.hco_dist_in_m)}
              </Text>
            </Group>
            {hco.phone_number && (
              <Group gap={6} c="dimmed">
                <IconPhone size={14} />
                <Text size="sm">{formatUsPhone(hco.phone_number)}</Text>
              </Group>
            )}
          </div>
          <Stack gap={0} align="flex-end">
            <Text size="xs" c="dimmed">
              {bundle.avg_patient_rate_deductible_met !== null ? PRICE_CHECK_TEXT.beforeDeductible : 'You pay'}
            </Text>
            <Text fw={700} size="xl" data-testid="patient-rate">
              {formatPatientRate(bundle.avg_patient_rate)}
            </Text>
            {percent !== null && (
              <Text size="xs" c="dimmed">
                {percent}% of list price
              </Text>
            )}
            {bundle.avg_patient_rate_deductible_met !== null && (
              <Text size="xs" c="dimmed" data-testid="patient-rate-deductible-met">
                {PRICE_CHECK_TEXT.deductibleMet} {formatPatientRate(bundle.avg_patient_rate_deductible_met)}
              </Text>
            )}
          </Stack>
        </Group>
        <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="xs">
          <div>
            <Text size="xs" c="dimmed">
              List Price
            </Text>
            <Text size="sm" data-testid="list-rate">
              {formatCurrency(bundle.avg_list_rate)}
            </Text>
          </div>
          {bundle.avg_insurer_rate !== null && (
            <div data-testid="insurer-rate">
              <Group gap={4} wrap="nowrap">
                <Text size="xs" c="dimmed">
                  {PRICE_CHECK_MESSAGES.insurancePays}
                </Text>
                {bundle.avg_insurer_rate_deductible_met !== null && (
                  <Text size="xs" c="dimmed">
                    ({PRICE_CHECK_TEXT.insurerBeforeDeductible})
                  </Text>
                )}
              </Group>
              <Text size="sm">{formatCurrency(bundle.avg_insurer_rate)}</Text>
              {bundle.avg_insurer_rate_deductible_met !== null && (
                <Text size="xs" c="dimmed" data-testid="insurer-rate-deductible-met">
                  {PRICE_CHECK_TEXT.deductibleMet} {formatCurrency(bundle.avg_insurer_rate_deductible_met)}
                </Text>
              )}
            </div>
          )}
          {bundle.p10_amount !== null && bundle.p90_amount !== null && (
            <div>
              <Text size="xs" c="dimmed">
                Estimate range
              </Text>
              <Text size="sm" data-testid="estimate-range">
                {formatRange(bundle.p10_amount, bundle.p90_amount, formatCurrency)}
              </Text>
            </div>
          )}
        </SimpleGrid>
        <div>
          <Group justify="space-between">
            <Text size="xs" c="dimmed">
              Affordability
            </Text>
            <Text size="xs" fw={600}>
              {affordability}
            </Text>
          </Group>
          <Progress value={affordability} color={affordabilityBarColor(affordability)} aria-label={`Affordability ${affordability}`} />
        </div>
        {(bundle.methodology || bundle.avg_patient_rate_deductible_met !== null) && (
          <Group gap={4}>
            {bundle.methodology && (
              <>
                <Text size="xs" c="dimmed">
                  Priced by
                </Text>
                <Badge size="xs" variant="light" color="gray" tt="none" data-testid="methodology">
                  {methodologyLabel(bundle.methodology)}
                </Badge>
              </>
            )}
            {bundle.methodology && bundle.avg_patient_rate_deductible_met !== null && (
              <Text size="xs" c="dimmed">
                ·
              </Text>
            )}
            {bundle.avg_patient_rate_deductible_met !== null && (
              <Text size="xs" c="dimmed">
                {PRICE_CHECK_TEXT.planDesigns}
              </Text>
            )}
          </Group>
        )}
      </Stack>
    </Paper>
  )
}
