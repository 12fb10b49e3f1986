import { ATLAS_MESSAGES, ATLAS_PAGE_SIZES, endpoints, type AtlasListRow, type AtlasHomeResponse } from '@citrus/contracts'
import {
  Anchor,
  Breadcrumbs,
  Button,
  Checkbox,
  Group,
  Pagination,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core'
import { IconLock } from '@tabler/icons-react'
import { useState } from 'react'
import { EmptyState } from '../../../components/feedback/empty-state'
import { InlineLoader } from '../../../components/feedback/loading'
import { apiMessageOf, downloadEndpoint } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { saveBlob } from '../../../lib/save-file'
import { useAtlasList } from '../api/atlas'

type SortKey =
  'state' | 'hospitalName' | 'city' | 'patients' | 'commercialPercent' | 'medicarePercent' | 'medicaidPercent' | 'hcps' | 'hotspot'

export interface ListQuery {
  icd10_cm_union_csv: string
  search_within_region: string
  search_within_region_type: 'COUNTRY' | 'STATE' | 'ZIP_CODE_50KM'
}

/** List tab: state table, then the hospital table of a state (spec 2 §2). */
export function ListTab({
  query,
  home,
  onApplyFilter,
}: {
  query: ListQuery
  home: AtlasHomeResponse | undefined
  onApplyFilter?: (row: AtlasListRow) => Promise<void> | void
}) {
  const [state, setState] = useState<string | null>(null)
  const [page, setPage] = useState(1)
  const [pageSize, setPageSize] = useState(25)
  const [sort, setSort] = useState<{ key: SortKey; direction: 'asc' | 'desc' } | null>(null)
  const [selected, setSelected] = useState<string[]>([])
  const [applying, setApplying] = useState(false)
  const kind = state ? 'hospital' : 'state'
  const list = useAtlasList(page, {
    ...query,
    kind,
    ...(state ? { state } : {}),
    page_size: pageSize,
    ...(sort ? { sort: sort.key, direction: sort.direction } : {}),
  })
  const canExport = home?.features.csvExport?.unlocked ?? false
  const canScore = home?.features.score?.unlocked ?? false
  const canHospitals = home?.features.facilityLists?.unlocked ?? false

  const toggleSort = (key: SortKey) => {
    setSort((current) => ({ key, direction: current?.key === key && current.direction === 'desc' ? 'asc' : 'desc' }))
    setPage(1)
  }
  const viewHospitals = (row: AtlasListRow) => {
    if (!canHospitals) {
      notify({ severity: 'warning', title: ATLAS_MESSAGES.premiumTitle, message: ATLAS_MESSAGES.premiumHospitals, duration: 5000 })
    }
    setState(row.state)
    setPage(1)
    setSelected([])
  }
  const exportCsv = async () => {
    try {
      const csv = await downloadEndpoint(endpoints.atlas.list, {
        params: { use_case: 'conditions', page: 1 },
        query: {
          ...query,
          kind,
          ...(state ? { state } : {}),
          format: 'csv',
          ...(sort ? { sort: sort.key, direction: sort.direction } : {}),
        },
      })
      saveBlob(csv, `atlas-${kind}-data-${new Date().toISOString().slice(0, 10)}.csv`)
    } catch (error) {
      notify({ severity: 'error', message: apiMessageOf(error, ATLAS_MESSAGES.csvLocked) })
    }
  }
  const rows = list.data?.rows ?? []
  const header = (label: string, key: SortKey) => (
    <Table.Th>
      <UnstyledButton onClick={() => toggleSort(key)} fw={600}>
        {label}
        {sort?.key === key ? (sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}
      </UnstyledButton>
    </Table.Th>
  )
  const allSelected = rows.length > 0 && rows.every((r) => selected.includes(r.id))

  let body
  if (list.isPending) body = <InlineLoader />
  else if (list.isError)
    body = (
      <EmptyState
        type="error"
        title={ATLAS_MESSAGES.listError}
        message={
          state
            ? ATLAS_MESSAGES.hospitalsError(apiMessageOf(list.error, ATLAS_MESSAGES.hospitalsFailed))
            : apiMessageOf(list.error, ATLAS_MESSAGES.drilldownFailed)
        }
      />
    )
  else if (rows.length === 0)
    body = (
      <EmptyState
        type="no-data"
        title={state ? ATLAS_MESSAGES.noData : ATLAS_MESSAGES.noStateData}
        message={ATLAS_MESSAGES.noGeoDataCriteria}
      />
    )
  else
    body = (
      <Table striped highlightOnHover data-testid={`atlas-${kind}-table`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>
              <Checkbox
                aria-label="Select all"
                checked={allSelected}
                onChange={() => setSelected(allSelected ? [] : rows.map((r) => r.id))}
              />
            </Table.Th>
            {state ? header('Hospital', 'hospitalName') : header('State', 'state')}
            {state && header('City', 'city')}
            {header('Patients', 'patients')}
            {header('%Commercial', 'commercialPercent')}
            {header('%Medicare', 'medicarePercent')}
            {header('%Medicaid', 'medicaidPercent')}
            {header('HCPs', 'hcps')}
            {canScore ? (
              header('Score', 'hotspot')
            ) : (
              <Table.Th>
                <Tooltip label={ATLAS_MESSAGES.scoreTooltip}>
                  <Group gap={4}>
                    <IconLock size={14} /> Score
                  </Group>
                </Tooltip>
              </Table.Th>
            )}
            {!state && <Table.Th />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.id}>
              <Table.Td>
                <Checkbox
                  aria-label={`Select ${row.hospitalName ?? row.state}`}
                  checked={selected.includes(row.id)}
                  onChange={() => setSelected((s) => (s.includes(row.id) ? s.filter((x) => x !== row.id) : [...s, row.id]))}
                />
              </Table.Td>
              <Table.Td>{row.hospitalName ?? row.state}</Table.Td>
              {state && <Table.Td>{row.city}</Table.Td>}
              <Table.Td>{row.patients.toLocaleString('en-US')}</Table.Td>
              <Table.Td>{row.commercialPercent.toFixed(1)}%</Table.Td>
              <Table.Td>{row.medicarePercent.toFixed(1)}%</Table.Td>
              <Table.Td>{row.medicaidPercent.toFixed(1)}%</Table.Td>
              <Table.Td>{row.hcps.toLocaleString('en-US')}</Table.Td>
              <Table.Td>
                {canScore ? (
                  (row.hotspot?.toFixed(1) ?? '—')
                ) : (
                  <Tooltip label={ATLAS_MESSAGES.scoreTooltip}>
                    <Text style={{ filter: 'blur(4px)', userSelect: 'none' }}>00.0</Text>
                  </Tooltip>
                )}
              </Table.Td>
              {!state && (
                <Table.Td>
                  <Button size="xs" variant="light" onClick={() => viewHospitals(row)}>
                    View Hospitals
                  </Button>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    )

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Breadcrumbs>
          <Anchor component="button" onClick={() => (setState(null), setPage(1), setSelected([]))}>
            All States
          </Anchor>
          {state && <Text>{state}</Text>}
        </Breadcrumbs>
        <Group gap="xs">
          {onApplyFilter && (
            <Button
              size="xs"
              variant="light"
              disabled={selected.length !== 1 || applying}
              onClick={async () => {
                const row = rows.find((r) => r.id === selected[0])
                if (!row) return
                setApplying(true)
                try {
                  await onApplyFilter(row)
                } finally {
                  setApplying(false)
                }
              }}
            >
              {applying ? ATLAS_MESSAGES.applying : selected.length > 1 ? ATLAS_MESSAGES.selectOnlyOne : ATLAS_MESSAGES.applyFilter}
            </Button>
          )}
          <Tooltip label={ATLAS_MESSAGES.csvTooltip} disabled={canExport}>
            <Button
              size="xs"
              disabled={!canExport || rows.length === 0}
              onClick={() => void exportCsv()}
              leftSection={canExport ? undefined : <IconLock size={14} />}
            >
              Export CSV
            </Button>
          </Tooltip>
        </Group>
      </Group>
      <Paper withBorder radius="md" p="xs">
        {body}
      </Paper>
      {list.data && list.data.total_rows > 0 && (
        <Group justify="space-between">
          <Select
            w={110}
            size="xs"
            aria-label="Rows per page"
            data={ATLAS_PAGE_SIZES.map(String)}
            value={String(pageSize)}
            onChange={(v) => (setPageSize(Number(v ?? 25)), setPage(1))}
          />
          <Pagination size="sm" total={list.data.total_pages} value={page} onChange={setPage} />
        </Group>
      )}
    </Stack>
  )
}
