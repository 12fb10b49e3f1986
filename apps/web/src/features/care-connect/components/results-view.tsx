import { CARE_ANALYTICS_EVENTS, CARE_GRADES, INSTITUTION_TYPES, PROVIDER_TYPES, type RankingsQuery } from '@citrus/contracts'
import {
  ActionIcon,
  Alert,
  Box,
  Button,
  Chip,
  Group,
  Pagination,
  Paper,
  Popover,
  Select,
  SimpleGrid,
  Stack,
  Tabs,
  Text,
} from '@mantine/core'
import { IconChevronLeft, IconChevronRight, IconFilter } from '@tabler/icons-react'
import { useMemo, useState, type ReactNode } from 'react'
import { track } from '../../../lib/analytics'
import type { HcoRow, HcpRow, Rankings } from '../api/care-api'
import { metersToMiles } from '../utils/format'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'
import { FacilityCard, ProviderCard } from './provider-card'
import { ResultsMap } from './results-map'
import { ComparisonModal, EMPTY_SELECTION, SelectionBar, toggleFacility, toggleProvider, type Selection } from './selection'

export const DEFAULT_PAGE_SIZE = 5
const PAGE_SIZES = ['5', '10', '20']
/** Provider sort labels (spec 3 §9), on the Providers tab. */
export const SORTS = [
  { value: 'final_score', label: 'overall score' },
  { value: 'cost', label: 'Care Affordability' },
  { value: 'quality', label: 'Quality of Care' },
  { value: 'distance', label: 'Distance' },
] as const
/** Grade sort labels (spec 3 §9), on the Hospitals tab (facility rankings carry grades); overall score stays the default. */
export const GRADE_SORTS = [
  { value: 'final_score', label: 'overall score' },
  { value: 'cost_grade', label: 'Cost Grade' },
  { value: 'quality_grade', label: 'Quality Grade' },
  { value: 'distance', label: 'Distance' },
] as const
type ProviderSort = (typeof SORTS)[number]['value']
type FacilitySort = (typeof GRADE_SORTS)[number]['value']
type Sort = ProviderSort | FacilitySort

const isProviderSort = (sort: Sort): sort is ProviderSort => SORTS.some((s) => s.value === sort)
const isFacilitySort = (sort: Sort): sort is FacilitySort => GRADE_SORTS.some((s) => s.value === sort)
/** The sort a tab shows: the chosen one when the tab offers it, else the default (overall score). */
function sortFor(tab: 'providers' | 'hcos', sort: Sort): Sort {
  return (tab === 'providers' ? isProviderSort(sort) : isFacilitySort(sort)) ? sort : 'final_score'
}

function sortProviders(rows: HcpRow[], sort: ProviderSort): HcpRow[] {
  if (sort === 'final_score') return rows
  const copy = [...rows]
  if (sort === 'distance') return copy.sort((a, b) => a.features.distance_in_miles - b.features.distance_in_miles)
  if (sort === 'cost') return copy.sort((a, b) => b.task_scores.cost - a.task_scores.cost)
  return copy.sort((a, b) => b.task_scores.quality_of_care - a.task_scores.quality_of_care)
}
/** A before D before N/A; the same letter by the task score, higher first. */
function byGrade(gradeA: string, scoreA: number, gradeB: string, scoreB: number): number {
  const rank = (grade: string) => {
    const index = (CARE_GRADES as readonly string[]).indexOf(grade)
    return index === -1 ? CARE_GRADES.length : index
  }
  return rank(gradeA) - rank(gradeB) || scoreB - scoreA
}
function sortFacilities(rows: HcoRow[], sort: FacilitySort): HcoRow[] {
  if (sort === 'final_score') return rows
  const copy = [...rows]
  if (sort === 'distance') return copy.sort((a, b) => a.distance_in_miles - b.distance_in_miles)
  if (sort === 'cost_grade')
    return copy.sort((a, b) => byGrade(a.task_scores.cost_grade, a.task_scores.cost, b.task_scores.cost_grade, b.task_scores.cost))
  return copy.sort((a, b) =>
    byGrade(
      a.task_scores.quality_of_care_grade,
      a.task_scores.quality_of_care,
      b.task_scores.quality_of_care_grade,
      b.task_scores.quality_of_care,
    ),
  )
}

/**
 * The results of a search, shared by the referral view (clinicians) and the recommendations (members): tabs
 * Hospitals/Providers (a tab without results is disabled and the view moves to the other), sort, filters
 * (referral view), pagination (default 5), cards, the map, selection and comparison (spec 3 §2.2-§4.4).
 */
export function ResultsView({
  data,
  mode,
  search,
  actions,
  onSend,
}: {
  data: Rankings
  mode: 'referral' | 'member'
  search: RankingsQuery
  actions?: (selection: Selection) => ReactNode
  onSend?: (selection: Selection) => void
}) {
  const [chosenTab, setTab] = useState<'providers' | 'hcos'>('providers')
  const [sort, setSort] = useState<Sort>('final_score')
  const [pageSize, setPageSize] = useState(DEFAULT_PAGE_SIZE)
  const [page, setPage] = useState(0)
  const [types, setTypes] = useState<string[]>([])
  const [institutions, setInstitutions] = useState<string[]>([])
  const [filterWarning, setFilterWarning] = useState(false)
  const [selection, setSelection] = useState<Selection>(EMPTY_SELECTION)
  const [comparing, setComparing] = useState(false)
  // the provider the map flies to (zoom 14): a clicked marker or the last provider card selected
  const [focusNpi, setFocusNpi] = useState<string | null>(null)

  // a new search resets sort, page size, page and selection (spec 3 §4.1): the parent keys this view by the search

  const providerSort: ProviderSort = isProviderSort(sort) ? sort : 'final_score'
  const facilitySort: FacilitySort = isFacilitySort(sort) ? sort : 'final_score'
  const providers = useMemo(() => {
    const filtered = types.length === 0 ? data.hcp_rankings : data.hcp_rankings.filter((r) => types.includes(r.hcp_entity.provider_type))
    return sortProviders(filtered, providerSort)
  }, [data, types, providerSort])
  const facilities = useMemo(() => {
    const filtered =
      institutions.length === 0 ? data.hco_rankings : data.hco_rankings.filter((r) => institutions.includes(r.institution_type))
    return sortFacilities(filtered, facilitySort)
  }, [data, institutions, facilitySort])
  // institution types of the search (spec 3 §3), as provider types: those counted among the candidates (or listed)
  const institutionOptions = INSTITUTION_TYPES.filter(
    (t) =>
      (data.common_ranking_metadata.institution_types_to_counts[t.value] ?? 0) > 0 ||
      data.hco_rankings.some((r) => r.institution_type === t.value),
  )

  // an empty active tab gives way to the other (spec 3 §4.1)
  const tab: 'providers' | 'hcos' =
    chosenTab === 'providers' && providers.length === 0 && facilities.length > 0
      ? 'hcos'
      : chosenTab === 'hcos' && facilities.length === 0 && providers.length > 0
        ? 'providers'
        : chosenTab

  const rows = tab === 'providers' ? providers : facilities
  const pages = Math.max(1, Math.ceil(rows.length / pageSize))
  const visible = rows.slice(page * pageSize, page * pageSize + pageSize)
  const count = rows.length
  const descriptions = {
    ...data.common_ranking_metadata.procedure_code_descriptions,
    ...data.common_ranking_metadata.diagnosis_code_descriptions,
  }

  /** A page or page-size change asked by the user (arrows, pagination, rows per page); resets are not events. */
  function changePage(nextPage: number, nextSize: number = pageSize) {
    const last = Math.max(0, Math.ceil(rows.length / nextSize) - 1)
    const target = Math.min(Math.max(0, nextPage), last)
    track(CARE_ANALYTICS_EVENTS.paginationChanged, { view: mode, tab, page: target + 1, page_size: nextSize })
    setPageSize(nextSize)
    setPage(target)
  }

  /**
   * Toggles one chip of a filter (provider or institution types), applied at once; a choice with zero hits leaves
   * the list unchanged and warns (spec 3 §4.4).
   */
  function toggleFilter(chosen: string[], value: string, hitsOf: (next: string[]) => number, apply: (next: string[]) => void) {
    const next = chosen.includes(value) ? chosen.filter((t) => t !== value) : [...chosen, value]
    if (next.length > 0 && hitsOf(next) === 0) {
      setFilterWarning(true)
      return
    }
    setFilterWarning(false)
    apply(next)
    setPage(0)
  }
  const toggleType = (type: string) =>
    toggleFilter(types, type, (next) => data.hcp_rankings.filter((r) => next.includes(r.hcp_entity.provider_type)).length, setTypes)
  const toggleInstitution = (type: string) =>
    toggleFilter(institutions, type, (next) => data.hco_rankings.filter((r) => next.includes(r.institution_type)).length, setInstitutions)

  const title =
    mode === 'referral' ? (
      <Text fw={800} size="xl" data-testid="results-count">
        {data.hcp_rankings.length + data.hco_rankings.length} {CARE_TEXT.referralResults}
      </Text>
    ) : (
      <Group gap="xs">
        <Text fw={800} size="xl" data-testid="results-count">
          {count} {tab === 'providers' ? CARE_TEXT.recommendedProviders : CARE_TEXT.recommendedHospitals}
        </Text>
        <Text c="dimmed">near {search.zip_code}</Text>
        <ActionIcon variant="default" aria-label="Previous page" disabled={page === 0} onClick={() => changePage(page - 1)}>
          <IconChevronLeft size={16} />
        </ActionIcon>
        <ActionIcon variant="default" aria-label="Next page" disabled={page >= pages - 1} onClick={() => changePage(page + 1)}>
          <IconChevronRight size={16} />
        </ActionIcon>
      </Group>
    )

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        {title}
        <Group gap="xs">
          {mode === 'referral' && (
            <Popover position="bottom-end" withArrow>
              <Popover.Target>
                <Button variant="default" leftSection={<IconFilter size={16} />} data-tour="filter">
                  {CARE_TEXT.filter}
                </Button>
              </Popover.Target>
              <Popover.Dropdown>
                <Stack gap="xs">
                  <Text fw={600} size="sm">
                    Provider type
                  </Text>
                  <Group gap={6} maw={360}>
                    {PROVIDER_TYPES.filter((t) => (data.common_ranking_metadata.provider_types_to_counts[t.value] ?? 0) > 0).map((t) => (
                      <Chip key={t.value} size="xs" checked={types.includes(t.value)} onChange={() => toggleType(t.value)}>
                        {t.label}
                      </Chip>
                    ))}
                  </Group>
                  {institutionOptions.length > 0 && (
                    <>
                      <Text fw={600} size="sm">
                        {CARE_TEXT.institutionType}
                      </Text>
                      <Group gap={6} maw={360}>
                        {institutionOptions.map((t) => (
                          <Chip
                            key={t.value}
                            size="xs"
                            checked={institutions.includes(t.value)}
                            onChange={() => toggleInstitution(t.value)}
                          >
                            {t.label}
                          </Chip>
                        ))}
                      </Group>
                    </>
                  )}
                  <Button
                    size="xs"
                    variant="subtle"
                    onClick={() => (setTypes([]), setInstitutions([]), setFilterWarning(false), setPage(0))}
                  >
                    Clear
                  </Button>
                </Stack>
              </Popover.Dropdown>
            </Popover>
          )}
          <Select
            aria-label="Sort"
            data-tour="sort"
            w={190}
            data={(tab === 'providers' ? SORTS : GRADE_SORTS).map((s) => ({ value: s.value, label: s.label }))}
            value={sortFor(tab, sort)}
            onChange={(value) => {
              setSort((value as Sort | null) ?? 'final_score')
              setPage(0)
            }}
            allowDeselect={false}
          />
          {actions?.(selection)}
        </Group>
      </Group>
      {filterWarning && (
        <Alert color="yellow" withCloseButton onClose={() => setFilterWarning(false)}>
          {CARE_MESSAGES_UI.filterZero}
        </Alert>
      )}
      <Tabs
        value={tab}
        onChange={(value) => {
          const next = value === 'hcos' ? 'hcos' : 'providers'
          setTab(next)
          // a sort the new tab does not offer gives way to the default (spec 3 §9)
          setSort(sortFor(next, sort))
          setPage(0)
        }}
      >
        <Tabs.List>
          {mode === 'referral' ? (
            <>
              <Tabs.Tab value="hcos" disabled={facilities.length === 0}>
                {CARE_TEXT.hospitals}
              </Tabs.Tab>
              <Tabs.Tab value="providers" disabled={providers.length === 0}>
                {CARE_TEXT.providers}
              </Tabs.Tab>
            </>
          ) : (
            <>
              <Tabs.Tab value="providers" disabled={providers.length === 0}>
                {CARE_TEXT.providers}
              </Tabs.Tab>
              <Tabs.Tab value="hcos" disabled={facilities.length === 0}>
                {CARE_TEXT.hospitals}
              </Tabs.Tab>
            </>
          )}
        </Tabs.List>
      </Tabs>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <Stack gap="sm" data-tour="cards">
          {tab === 'providers'
            ? (visible as HcpRow[]).map((row) => (
                <ProviderCard
                  key={row.hcp_entity.npi}
                  row={row}
                  descriptions={descriptions}
                  selected={selection.providers.some((p) => p.hcp_entity.npi === row.hcp_entity.npi)}
                  onToggle={() => {
                    if (!selection.providers.some((p) => p.hcp_entity.npi === row.hcp_entity.npi)) setFocusNpi(row.hcp_entity.npi)
                    setSelection((s) => toggleProvider(s, row))
                  }}
                />
              ))
            : (visible as HcoRow[]).map((row) => (
                <FacilityCard
                  key={row.hco_npi ?? row.hco_id}
                  row={row}
                  selected={selection.facilities.some((f) => (f.hco_npi ?? f.hco_id) === (row.hco_npi ?? row.hco_id))}
                  onToggle={() => setSelection((s) => toggleFacility(s, row))}
                />
              ))}
        </Stack>
        <Paper withBorder radius="md" mih={360} data-tour="map">
          <Box h="100%">
            <ResultsMap
              providers={tab === 'providers' ? (visible as HcpRow[]) : []}
              facilities={tab === 'hcos' ? (visible as HcoRow[]) : []}
              center={{ lat: data.search_lat, lng: data.search_long }}
              radiusMiles={metersToMiles(data.radius_in_m)}
              selectedNpi={focusNpi}
              onSelect={setFocusNpi}
            />
          </Box>
        </Paper>
      </SimpleGrid>
      <Group justify="space-between">
        <Pagination total={pages} value={page + 1} onChange={(value) => changePage(value - 1)} />
        <Select
          aria-label="Rows per page"
          w={90}
          data={PAGE_SIZES}
          value={String(pageSize)}
          onChange={(value) => changePage(0, Number(value ?? DEFAULT_PAGE_SIZE))}
          allowDeselect={false}
        />
      </Group>
      <SelectionBar
        selection={selection}
        tab={tab}
        onCompare={() => setComparing(true)}
        onClear={() => {
          track(CARE_ANALYTICS_EVENTS.selectionCleared, {
            view: mode,
            providers: selection.providers.length,
            facilities: selection.facilities.length,
          })
          setSelection(EMPTY_SELECTION)
        }}
        {...(onSend ? { onSend: () => onSend(selection) } : {})}
      />
      <ComparisonModal opened={comparing} onClose={() => setComparing(false)} selection={selection} tab={tab} />
    </Stack>
  )
}
