import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Container,
  CopyButton,
  Group,
  Modal,
  Paper,
  Progress,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core'
import { PRICE_CHECK_MESSAGES, formatRange, formatUsPhone, plural, type ListedPrice } from '@citrus/contracts'
import { IconAlertCircle, IconArrowLeft, IconCheck, IconCopy, IconPrinter, IconScale, IconShare } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate, useParams, useSearchParams } from 'react-router'
import { apiMessageOf } from '../../../lib/api-client'
import { useSession } from '../../../lib/session'
import { useInsurers } from '../../../hooks/use-insurers'
import { affordabilityBarColor, formatCurrency, formatPatientRate } from '../../../lib/cost-format'
import { useProviderCost, useShareProviderCost, type ProviderCost } from '../api/provider-cost'
import { PayerRatesSection } from './payer-rates'

/** Print: the page without the app chrome and the action buttons. */
const PRINT_CSS = `@media print {
  nav, header, aside, [data-no-print] { display: none !important; }
  body { background: #fff !important; }
  [data-print-root] { max-width: none !important; padding: 0 !important; }
}`

export const PROVIDER_COST_TEXT = {
  back: 'Back',
  range: 'Estimated cost range',
  /** the claims figures answer "what was paid", the listed price "what the price list says" (docs/decisions/0075) */
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
} as const

/**
 * /provider-cost-transparency/{npi} (member, admin, citrus; spec 3 §2.7 with real figures,
 * docs/decisions/0029): back button, estimated cost range, visit types with billing codes, costs and
 * affordability bars; Compare (against peers), Share (a link limited to this page) and Print.
 */
export function ProviderCostTransparencyRoute() {
  const { npi = '' } = useParams()
  const navigate = useNavigate()
  const session = useSession()
  // the carrier whose claims the figures come from, kept in the address bar (?insurance=); none = all payers
  const [params, setParams] = useSearchParams()
  const insurance = params.get('insurance') || null
  // opened from Price Check: its procedure's codes and search ZIP, for the listed price (docs/decisions/0075)
  const cost = useProviderCost(npi, insurance, { codes: params.get('procedure_codes_csv') || null, zip: params.get('zip_code') || null })
  // the carrier list needs a signed-in user (a shared link's guest sees the carrier the link was opened with)
  const insurers = useInsurers({ enabled: session.authenticated && session.role !== 'guest' })
  const carriers = [...new Set([...(insurers.data?.insurers ?? []), ...(insurance ? [insurance] : [])])]
  const chooseCarrier = (value: string | null) => {
    const next = new URLSearchParams(params)
    if (value) next.set('insurance', value)
    else next.delete('insurance')
    setParams(next, { replace: true })
  }
  const share = useShareProviderCost()
  const [comparing, setComparing] = useState(false)
  const [shareOpen, setShareOpen] = useState(false)

  const back = () => {
    if (window.history.length > 1) void navigate(-1)
    else void navigate('/price-check')
  }

  return (
    <Container size="lg" py="lg" data-print-root>
      <style>{PRINT_CSS}</style>
      <Stack gap="lg">
        <Group justify="space-between" data-no-print>
          <Button variant="subtle" leftSection={<IconArrowLeft size={16} />} onClick={back}>
            {PROVIDER_COST_TEXT.back}
          </Button>
          <Group gap="xs">
            <Select
              aria-label={PROVIDER_COST_TEXT.carrier}
              placeholder={PROVIDER_COST_TEXT.allPayers}
              data={carriers}
              value={insurance}
              onChange={chooseCarrier}
              searchable
              clearable
              w={240}
              data-testid="provider-carrier"
            />
            <Button variant="default" leftSection={<IconScale size={16} />} disabled={!cost.isSuccess} onClick={() => setComparing(true)}>
              {PROVIDER_COST_TEXT.compare}
            </Button>
            {session.authenticated && (
              <Button
                variant="default"
                leftSection={<IconShare size={16} />}
                loading={share.isPending}
                disabled={!cost.isSuccess}
                onClick={() => {
                  setShareOpen(true)
                  if (!share.data) share.mutate({ params: { npi } })
                }}
              >
                {PROVIDER_COST_TEXT.share}
              </Button>
            )}
            <Button variant="default" leftSection={<IconPrinter size={16} />} onClick={() => window.print()}>
              {PROVIDER_COST_TEXT.print}
            </Button>
          </Group>
        </Group>

        {cost.isPending && cost.fetchStatus !== 'idle' && <Skeleton height={320} radius="lg" />}
        {cost.isError && (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title="Error">
            {apiMessageOf(cost.error, PROVIDER_COST_TEXT.loadFailed)}
          </Alert>
        )}
        {cost.isSuccess && <ProviderCostBody cost={cost.data} />}
      </Stack>

      <Modal opened={comparing} onClose={() => setComparing(false)} title="Compared with peers" size="xl">
        {cost.isSuccess && <PeerComparison cost={cost.data} />}
      </Modal>
      <Modal opened={shareOpen} onClose={() => setShareOpen(false)} title={PROVIDER_COST_TEXT.shareTitle}>
        <Stack>
          <Text size="sm" c="dimmed">
            {PROVIDER_COST_TEXT.shareHelp}
          </Text>
          {share.isError && <Alert color="red">{PROVIDER_COST_TEXT.shareFailed}</Alert>}
          {share.isPending && <Skeleton height={36} />}
          {share.data && (
            <Group gap="xs" wrap="nowrap">
              <TextInput
                style={{ flex: 1 }}
                readOnly
                value={share.data.url}
                aria-label="Shareable link"
                onFocus={(e) => e.currentTarget.select()}
              />
              <CopyButton value={share.data.url} timeout={2000}>
                {({ copied, copy }) => (
                  <Tooltip label={copied ? 'Copied' : 'Copy'}>
                    <ActionIcon variant="light" size="lg" onClick={copy} aria-label="Copy link">
                      {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                    </ActionIcon>
                  </Tooltip>
                )}
              </CopyButton>
            </Group>
          )}
        </Stack>
      </Modal>
    </Container>
  )
}

function AffordabilityBar({ value }: { value: number | null }) {
  if (value === null)
    return (
      <Text size="xs" c="dimmed">
        No peer data
      </Text>
    )
  return (
    <Group gap="xs" wrap="nowrap">
      <Progress style={{ flex: 1 }} value={value} color={affordabilityBarColor(value)} aria-label={`Affordability ${value}`} />
      <Text size="xs" fw={600} w={28} ta="right">
        {value}
      </Text>
    </Group>
  )
}

function ProviderCostBody({ cost }: { cost: ProviderCost }) {
  const p = cost.provider
  return (
    <Stack gap="lg">
      <div>
        <Group gap="xs">
          <Title order={2}>{p.full_name}</Title>
          {cost.kind === 'facility' && <Badge variant="light">{PROVIDER_COST_TEXT.facility}</Badge>}
          {cost.payment_perspective && <Badge variant="outline">{cost.payment_perspective}</Badge>}
        </Group>
        <Text c="dimmed">
          {p.cms_specialization} · NPI {p.npi}
        </Text>
        <Text size="sm" c="dimmed">
          {p.address}, {p.city}, {p.state} {p.zip_code}
          {p.facility_name ? ` · ${p.facility_name}` : ''}
          {p.phone_number ? ` · ${formatUsPhone(p.phone_number)}` : ''}
        </Text>
      </div>
      {cost.listed_price && <ListedPriceSection listed={cost.listed_price} />}
      {cost.payer_rates && cost.payer_rates.length > 0 && (
        <PayerRatesSection rates={cost.payer_rates} carrier={cost.payment_perspective} carrierRates={cost.carrier_rate_by_procedure} />
      )}
      <div>
        <Title order={4}>{PROVIDER_COST_TEXT.paidClaims}</Title>
        <Text size="xs" c="dimmed">
          {PROVIDER_COST_TEXT.paidClaimsHelp}
        </Text>
      </div>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Paper withBorder radius="lg" p="md">
          <Text size="xs" c="dimmed">
            {PROVIDER_COST_TEXT.range} ({PROVIDER_COST_TEXT.paidClaims.toLowerCase()})
          </Text>
          {cost.estimated_cost_range ? (
            <>
              <Text fw={700} size="xl" data-testid="cost-range">
                {formatRange(cost.estimated_cost_range.low, cost.estimated_cost_range.high, formatCurrency)}
              </Text>
              <Text size="xs" c="dimmed">
                median {formatCurrency(cost.estimated_cost_range.median)} per visit, from {plural(cost.claim_count, 'claim')}
              </Text>
            </>
          ) : (
            <Text>{PROVIDER_COST_TEXT.noClaims}</Text>
          )}
        </Paper>
        <Paper withBorder radius="lg" p="md">
          <Text size="xs" c="dimmed">
            {PROVIDER_COST_TEXT.patientPaid}
          </Text>
          {cost.patient_cost_range ? (
            <Text fw={700} size="xl" data-testid="patient-cost-range">
              {formatRange(cost.patient_cost_range.low, cost.patient_cost_range.high, formatCurrency)}
            </Text>
          ) : (
            <Text>—</Text>
          )}
        </Paper>
        <Paper withBorder radius="lg" p="md">
          <Text size="xs" c="dimmed">
            Affordability vs {plural(cost.peers.count, 'peer')} ({cost.peers.specialty}, within {Math.round(cost.peers.radius_in_m / 1000)}{' '}
            km)
          </Text>
          <AffordabilityBar value={cost.affordability} />
          <Text size="xs" c="dimmed" mt={4}>
            {PROVIDER_COST_TEXT.peerComparison}
          </Text>
        </Paper>
      </SimpleGrid>
      <Paper withBorder radius="lg" p="md">
        <Title order={4} mb="sm">
          {PROVIDER_COST_TEXT.visitTypes}
        </Title>
        <Table.ScrollContainer minWidth={640}>
          <Table verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Visit type</Table.Th>
                <Table.Th>Code</Table.Th>
                <Table.Th ta="right">Cost (claims)</Table.Th>
                <Table.Th ta="right">{PROVIDER_COST_TEXT.patientPaid}</Table.Th>
                <Table.Th w={180}>Affordability</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {cost.visit_types.map((v) => (
                <Table.Tr key={v.code}>
                  <Table.Td>
                    <Text size="sm">{v.description}</Text>
                    <Text size="xs" c="dimmed">
                      {plural(v.claim_count, 'claim')}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light">{v.code}</Badge>
                  </Table.Td>
                  <Table.Td ta="right">
                    {formatCurrency(v.avg_negotiated_rate)}
                    <UnitPriceNote line={v.avg_negotiated_rate} unit={v.unit_price?.negotiated} />
                  </Table.Td>
                  <Table.Td ta="right">
                    {formatCurrency(v.avg_patient_rate)}
                    <UnitPriceNote line={v.avg_patient_rate} unit={v.unit_price?.patient} />
                  </Table.Td>
                  <Table.Td>
                    <AffordabilityBar value={v.affordability} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
    </Stack>
  )
}

function PeerComparison({ cost }: { cost: ProviderCost }) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Code</Table.Th>
            <Table.Th ta="right">This provider</Table.Th>
            <Table.Th ta="right">Peer average</Table.Th>
            <Table.Th ta="right">{PROVIDER_COST_TEXT.facilityRate}</Table.Th>
            <Table.Th ta="right">Peers</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {cost.visit_types.map((v) => (
            <Table.Tr key={v.code}>
              <Table.Td>
                {v.code}{' '}
                <Text span size="xs" c="dimmed">
                  {v.description}
                </Text>
              </Table.Td>
              <Table.Td ta="right">{formatCurrency(v.avg_negotiated_rate)}</Table.Td>
              <Table.Td ta="right">{v.peer_avg_negotiated_rate === null ? '—' : formatCurrency(v.peer_avg_negotiated_rate)}</Table.Td>
              <Table.Td ta="right">{v.facility_negotiated_rate === null ? '—' : formatCurrency(v.facility_negotiated_rate)}</Table.Td>
              <Table.Td ta="right">{v.peer_count}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}

/**
 * Care Connect's per-unit figure under a claim-line mean when the two differ (a code billed in several units: hospital
 * days, therapy units, drug doses); equal figures are shown once (docs/decisions/0075).
 */
function UnitPriceNote({ line, unit }: { line: number; unit: number | undefined }) {
  if (unit === undefined || formatCurrency(unit) === formatCurrency(line)) return null
  return (
    <Text size="xs" c="dimmed" data-testid="unit-price">
      {formatCurrency(unit)} {PROVIDER_COST_TEXT.unitPrice}
    </Text>
  )
}

/**
 * The listed price of the Price Check procedure the page was opened with: the same figures as the facility's Price Check
 * card (the same server function), and Price Check's affordability among that search's facilities.
 */
function ListedPriceSection({ listed }: { listed: ListedPrice }) {
  const bundle = listed.cost_bundle
  const search = listed.price_check
  return (
    <Paper withBorder radius="lg" p="md" data-testid="listed-price">
      <Group gap="xs">
        <Title order={4}>{PROVIDER_COST_TEXT.listedPrice}</Title>
        <Badge variant="light">{listed.procedure_codes.join(', ')}</Badge>
        <Badge variant="outline">{listed.payment_perspective ?? PROVIDER_COST_TEXT.cash}</Badge>
      </Group>
      <Text size="xs" c="dimmed" mb="sm">
        {PROVIDER_COST_TEXT.listedPriceHelp}
        {listed.facility_name ? ` ${listed.facility_name}.` : ''}
      </Text>
      {!bundle ? (
        <Text size="sm">{listed.facility_name ? PROVIDER_COST_TEXT.notListed : PROVIDER_COST_TEXT.noFacility}</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 4 }}>
          <div>
            <Text size="xs" c="dimmed">
              {bundle.avg_patient_rate_deductible_met !== null ? PROVIDER_COST_TEXT.youPayBeforeDeductible : PROVIDER_COST_TEXT.youPay}
            </Text>
            <Text fw={700} size="xl" data-testid="listed-patient-rate">
              {formatPatientRate(bundle.avg_patient_rate)}
            </Text>
            {bundle.avg_patient_rate_deductible_met !== null && (
              <Text size="xs" c="dimmed">
                {PROVIDER_COST_TEXT.deductibleMet} {formatPatientRate(bundle.avg_patient_rate_deductible_met)}
              </Text>
            )}
          </div>
          <div>
            <Text size="xs" c="dimmed">
              {PROVIDER_COST_TEXT.listPrice}
            </Text>
            <Text size="sm" data-testid="listed-list-rate">
              {formatCurrency(bundle.avg_list_rate)}
            </Text>
          </div>
          {bundle.avg_insurer_rate !== null && (
            <div>
              <Text size="xs" c="dimmed">
                {PRICE_CHECK_MESSAGES.insurancePays}
                {bundle.avg_insurer_rate_deductible_met !== null && ' (deductible not met)'}
              </Text>
              <Text size="sm" data-testid="listed-insurer-rate">
                {formatCurrency(bundle.avg_insurer_rate)}
              </Text>
              {bundle.avg_insurer_rate_deductible_met !== null && (
                <Text size="xs" c="dimmed">
                  {PROVIDER_COST_TEXT.deductibleMet} {formatCurrency(bundle.avg_insurer_rate_deductible_met)}
                </Text>
              )}
            </div>
          )}
          {search && (
            <div>
              <Text size="xs" c="dimmed">
                Price Check affordability (among {plural(search.facility_count, 'facility', 'facilities')} within{' '}
                {Math.round(search.radius_in_m / 1000)} km of {search.zip_code})
              </Text>
              <div data-testid="listed-affordability">
                {search.affordability === null ? (
                  <Text size="xs" c="dimmed">
                    {PROVIDER_COST_TEXT.notInSearch}
                  </Text>
                ) : (
                  <AffordabilityBar value={search.affordability} />
                )}
              </div>
            </div>
          )}
        </SimpleGrid>
      )}
    </Paper>
  )
}
