import { Alert, Button, Container, Group, Pagination, Paper, Select, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core'
import { IconAlertCircle, IconSearchOff } from '@tabler/icons-react'
import { useMemo, useState } from 'react'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { PRICE_CHECK_SKELETONS, plural, priceCheckEmptyMessage } from '@citrus/contracts'
import { EmptyState } from '../../../components/feedback/empty-state'
import { useProcedureCosts, useProcedureSuggestions } from '../api/price-check'
import { FacilityCostCard } from '../components/facility-cost-card'
import {
  DEFAULT_RESULT_PAGE_SIZE,
  PRICE_CHECK_MESSAGES,
  PRICE_CHECK_SORTS,
  RESULT_PAGE_SIZES,
  SORT_LABELS,
  affordabilityScores,
  formatWholeDollars,
  isSort,
  sortCosts,
  type ChosenProcedure,
  type PriceCheckSort,
} from '../utils/price-check'

/**
 * /price-check/results (member, admin, citrus; spec 3 §2.6, §4.8): the procedure header, the cost bundle,
 * the sort selector, facility cards, 4 skeletons while loading, the error alert (the list emptied) and the
 * empty state with Try New Search and, with insurance, Remove Insurance Filter.
 */
export function PriceCheckResultsRoute() {
  const [params, setParams] = useSearchParams()
  const navigate = useNavigate()
  const location = useLocation()
  const zip = params.get('zip_code') ?? ''
  const codes = params.get('procedure_codes_csv') ?? ''
  const insurance = params.get('insurance') || null
  const fromState = (location.state as { procedure?: ChosenProcedure } | null)?.procedure
  // opened from a bookmark or a link: the procedure whose codes are exactly these, by the type-ahead
  const lookup = useProcedureSuggestions(fromState ? '' : (codes.split(',')[0] ?? ''))
  const chosen = fromState ?? lookup.data?.procedures.find((p) => p.cpt_codes.join(',') === codes)
  const procedureName = chosen?.name ?? (codes ? `procedure ${codes.split(',').join(', ')}` : 'the procedure')

  const [sort, setSort] = useState<PriceCheckSort>('patient_cost')
  const [page, setPage] = useState(1)
  const [size, setSize] = useState<number>(DEFAULT_RESULT_PAGE_SIZE)

  const costs = useProcedureCosts({ zip, codes, insurance })
  const rows = useMemo(() => (costs.isSuccess ? costs.data.cost_by_hco : []), [costs.isSuccess, costs.data])
  const sorted = useMemo(() => sortCosts(rows, sort), [rows, sort])
  const scores = useMemo(() => affordabilityScores(rows), [rows])
  const pages = Math.max(1, Math.ceil(sorted.length / size))
  const current = Math.min(page, pages)
  const visible = sorted.slice((current - 1) * size, current * size)

  const newSearch = () => {
    const back = new URLSearchParams({ zip })
    if (insurance) back.set('insurance', insurance)
    if (codes) back.set('codes', codes)
    if (chosen) back.set('procedure', chosen.name)
    void navigate(`/price-check?${back.toString()}`)
  }
  const removeInsurance = () => {
    const next = new URLSearchParams(params)
    next.delete('insurance')
    setParams(next, { state: location.state as unknown })
  }
  const bundle = costs.data?.avg_cost_bundle ?? null

  return (
    <Container size="lg" py="lg">
      <Stack gap="lg">
        <Group justify="space-between" align="flex-end">
          <div>
            <Text size="sm" c="dimmed">
              Price Check
            </Text>
            <Title order={2}>{chosen?.name ?? procedureName}</Title>
            <Text c="dimmed" size="sm">
              Near {zip} · {insurance ? insurance : 'Cash price'} · codes {codes.split(',').join(', ')}
            </Text>
          </div>
          <Button variant="default" onClick={newSearch}>
            New Search
          </Button>
        </Group>

        {bundle && (
          <Paper withBorder radius="lg" p="md" data-testid="cost-bundle">
            <SimpleGrid cols={{ base: 1, sm: bundle.avg_insurer_rate !== null ? 3 : 2 }}>
              <div>
                <Text size="xs" c="dimmed">
                  Average list price
                </Text>
                <Text fw={700} size="lg">
                  {formatWholeDollars(bundle.avg_list_rate)}
                </Text>
              </div>
              <div>
                <Text size="xs" c="dimmed">
                  Average you pay{bundle.avg_patient_rate_deductible_met !== null ? ' (deductible not met)' : ''}
                </Text>
                <Text fw={700} size="lg">
                  {formatWholeDollars(bundle.avg_patient_rate)}
                </Text>
              </div>
              {bundle.avg_insurer_rate !== null && (
                <div>
                  <Text size="xs" c="dimmed">
                    Average insurance pays{bundle.avg_insurer_rate_deductible_met !== null ? ' (deductible not met)' : ''}
                  </Text>
                  <Text fw={700} size="lg">
                    {formatWholeDollars(bundle.avg_insurer_rate)}
                  </Text>
                </div>
              )}
            </SimpleGrid>
          </Paper>
        )}

        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {costs.isSuccess ? plural(sorted.length, 'facility', 'facilities') : ''}
          </Text>
          <Select
            label="Sort by"
            aria-label="Sort by"
            w={200}
            data={PRICE_CHECK_SORTS.map((value) => ({ value, label: SORT_LABELS[value] }))}
            value={sort}
            allowDeselect={false}
            onChange={(value) => {
              if (isSort(value)) {
                setSort(value)
                setPage(1)
              }
            }}
          />
        </Group>

        {costs.isPending && costs.fetchStatus !== 'idle' && (
          <Stack gap="md" data-testid="price-skeletons">
            {Array.from({ length: PRICE_CHECK_SKELETONS }, (_, i) => (
              <Skeleton key={i} height={150} radius="lg" />
            ))}
          </Stack>
        )}
        {costs.isError && (
          <Alert color="red" icon={<IconAlertCircle size={18} />} title="Error">
            {PRICE_CHECK_MESSAGES.costFetchFailed}
          </Alert>
        )}
        {costs.isSuccess && sorted.length === 0 && (
          <EmptyState
            type="custom"
            icon={<IconSearchOff />}
            title={PRICE_CHECK_MESSAGES.emptyTitle}
            message={priceCheckEmptyMessage(procedureName, zip, insurance)}
          >
            <Group>
              <Button onClick={newSearch}>{PRICE_CHECK_MESSAGES.tryNewSearch}</Button>
              {insurance && (
                <Button variant="default" onClick={removeInsurance}>
                  {PRICE_CHECK_MESSAGES.removeInsuranceFilter}
                </Button>
              )}
            </Group>
          </EmptyState>
        )}
        {visible.length > 0 && (
          <Stack gap="md">
            {visible.map((hco) => (
              <FacilityCostCard
                key={`${hco.hco_npi ?? hco.hco_name}-${hco.hco_dist_in_m}`}
                hco={hco}
                affordability={scores.get(hco) ?? 0}
                insurance={insurance}
                search={{ codes, zip }}
              />
            ))}
          </Stack>
        )}
        {sorted.length > 0 && (
          <Group justify="space-between">
            <Select
              aria-label="Rows per page"
              w={90}
              size="xs"
              data={RESULT_PAGE_SIZES.map(String)}
              value={String(size)}
              allowDeselect={false}
              onChange={(value) => {
                if (!value) return
                setSize(Number(value))
                setPage(1)
              }}
            />
            <Pagination total={pages} value={current} onChange={setPage} size="sm" />
          </Group>
        )}
      </Stack>
    </Container>
  )
}
