import { Affix, Badge, Button, Group, Modal, Paper, ScrollArea, Table, Text } from '@mantine/core'
import { useState } from 'react'
import { copyText } from '../../../lib/clipboard'
import type { HcoRow, HcpRow } from '../api/care-api'
import { formatDistance, scoreOf } from '../utils/format'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'
import { facilityDetailsText, providerDetailsText } from './provider-card'

export interface Selection {
  providers: HcpRow[]
  facilities: HcoRow[]
}
export const EMPTY_SELECTION: Selection = { providers: [], facilities: [] }
export const COMPARE_MINIMUM = 2

/** Toggles an item, never twice by NPI (spec 3 §4.3). */
export function toggleProvider(selection: Selection, row: HcpRow): Selection {
  const has = selection.providers.some((p) => p.hcp_entity.npi === row.hcp_entity.npi)
  return {
    ...selection,
    providers: has ? selection.providers.filter((p) => p.hcp_entity.npi !== row.hcp_entity.npi) : [...selection.providers, row],
  }
}
export function toggleFacility(selection: Selection, row: HcoRow): Selection {
  const key = (r: HcoRow) => r.hco_npi ?? `hco-${r.hco_id}`
  const has = selection.facilities.some((f) => key(f) === key(row))
  return { ...selection, facilities: has ? selection.facilities.filter((f) => key(f) !== key(row)) : [...selection.facilities, row] }
}

/** The floating selection bar (spec 3 §4.3): export (copy), Send, Compare (2+ in the tab), Clear all, Dismiss. */
export function SelectionBar({
  selection,
  tab,
  onCompare,
  onClear,
  onSend,
  sendDisabled,
}: {
  selection: Selection
  tab: 'providers' | 'hcos'
  onCompare: () => void
  onClear: () => void
  onSend?: () => void
  sendDisabled?: boolean
}) {
  const [closedAt, setClosedAt] = useState<Selection | null>(null)
  const count = selection.providers.length + selection.facilities.length
  // closing hides the bar until the selection changes
  if (count === 0 || closedAt === selection) return null
  const inTab = tab === 'providers' ? selection.providers.length : selection.facilities.length
  const details = [...selection.providers.map(providerDetailsText), ...selection.facilities.map(facilityDetailsText)].join('\n\n')
  return (
    <Affix position={{ bottom: 24, left: '50%' }} style={{ transform: 'translateX(-50%)' }}>
      <Paper shadow="lg" radius="xl" px="lg" py="sm" withBorder data-testid="selection-bar">
        <Group gap="sm">
          <Badge size="lg">{count} selected</Badge>
          <Button variant="light" size="xs" onClick={() => void copyText(details, CARE_MESSAGES_UI.detailsCopied)}>
            {CARE_TEXT.exportDetails}
          </Button>
          {onSend && (
            <Button variant="light" size="xs" onClick={onSend} disabled={sendDisabled}>
              {CARE_TEXT.send}
            </Button>
          )}
          <Button size="xs" onClick={onCompare} disabled={inTab < COMPARE_MINIMUM}>
            {CARE_TEXT.compare}
          </Button>
          <Button variant="subtle" size="xs" color="red" onClick={onClear}>
            {CARE_TEXT.clearAll}
          </Button>
          <Button variant="subtle" size="xs" color="gray" onClick={() => setClosedAt(selection)}>
            {CARE_TEXT.dismiss}
          </Button>
        </Group>
      </Paper>
    </Affix>
  )
}

/** The comparison modal (2 or more in the current tab). */
export function ComparisonModal({
  opened,
  onClose,
  selection,
  tab,
}: {
  opened: boolean
  onClose: () => void
  selection: Selection
  tab: 'providers' | 'hcos'
}) {
  const rows =
    tab === 'providers'
      ? selection.providers.map((r) => ({
          key: r.hcp_entity.npi,
          name: r.hcp_entity.full_name,
          score: scoreOf(r.final_score),
          grade: r.final_grade,
          quality: r.task_scores.quality_of_care_grade,
          cost: r.task_scores.cost_grade,
          distance: formatDistance(r.features.distance_in_miles),
          extra: r.hcp_entity.cms_specialization,
        }))
      : selection.facilities.map((r) => ({
          key: r.hco_npi ?? String(r.hco_id),
          name: r.hco_name,
          score: scoreOf(r.final_score),
          grade: r.final_grade,
          quality: r.task_scores.quality_of_care_grade,
          cost: r.task_scores.cost_grade,
          distance: formatDistance(r.distance_in_miles),
          extra: r.hco_compile_level_1,
        }))
  return (
    <Modal opened={opened && rows.length >= COMPARE_MINIMUM} onClose={onClose} title="Compare" size="xl">
      {rows.length === 0 ? (
        <Text c="dimmed">{CARE_MESSAGES_UI.noSelection}</Text>
      ) : (
        <ScrollArea>
          <Table data-testid="comparison-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th />
                {rows.map((r) => (
                  <Table.Th key={r.key}>{r.name}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(
                [
                  ['Overall score', 'score'],
                  ['Grade', 'grade'],
                  ['Quality of Care', 'quality'],
                  ['Cost of Care', 'cost'],
                  ['Distance', 'distance'],
                  ['Type', 'extra'],
                ] as const
              ).map(([label, field]) => (
                <Table.Tr key={field}>
                  <Table.Th>{label}</Table.Th>
                  {rows.map((r) => (
                    <Table.Td key={r.key}>{r[field]}</Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
    </Modal>
  )
}
