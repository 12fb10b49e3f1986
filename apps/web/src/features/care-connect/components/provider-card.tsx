import { CARE_ANALYTICS_EVENTS, badgeLabel, plural, type CareGrade } from '@citrus/contracts'
import { ActionIcon, Badge, Button, Card, Checkbox, Collapse, Group, Stack, Table, Tabs, Text, Tooltip } from '@mantine/core'
import { IconCheck, IconCopy, IconPhone } from '@tabler/icons-react'
import { useEffect, useRef, useState } from 'react'
import { track } from '../../../lib/analytics'
import { copyText } from '../../../lib/clipboard'
import { notify } from '../../../lib/notify'
import type { HcoRow, HcpRow } from '../api/care-api'
import { formatDistance, formatMiles2, formatPhone, formatPrice, gradeColor, percentileChip, scoreOf } from '../utils/format'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'

export function GradeBadge({ label, grade }: { label: string; grade: CareGrade | string }) {
  return (
    <Badge variant="light" color={gradeColor(grade)} radius="sm">
      {label} {grade}
    </Badge>
  )
}

function PhoneLine({ phone }: { phone: string | null }) {
  return (
    <Group gap={4} wrap="nowrap">
      <Tooltip label={CARE_TEXT.phoneTooltip}>
        <Text size="sm">
          <IconPhone size={14} /> {phone ? formatPhone(phone) : '—'}
        </Text>
      </Tooltip>
      <ActionIcon
        size="sm"
        variant="subtle"
        aria-label="Copy phone number"
        onClick={(event) => {
          event.stopPropagation()
          if (!phone) notify({ severity: 'warning', message: CARE_MESSAGES_UI.noPhone })
          else void copyText(formatPhone(phone), CARE_MESSAGES_UI.phoneCopied)
        }}
      >
        <IconCopy size={14} />
      </ActionIcon>
    </Group>
  )
}

/** How long a card's copy button shows its copied state (spec 3 §9). */
export const COPIED_STATE_MS = 2000

/**
 * Copies one card's details (the selection bar's export text for that entity) and toasts
 * '{card} details copied to clipboard' (spec 3 §8); the button shows Copied for 2 seconds (§9).
 */
function CopyDetailsButton({ name, text }: { name: string; text: () => string }) {
  const [copied, setCopied] = useState(false)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current)
    },
    [],
  )
  const label = copied ? CARE_TEXT.copied : CARE_TEXT.copyCardDetails
  return (
    <Tooltip label={label}>
      <ActionIcon
        variant="subtle"
        color={copied ? 'teal' : 'gray'}
        aria-label={label}
        data-copied={copied || undefined}
        onClick={(event) => {
          event.stopPropagation()
          void copyText(text(), CARE_MESSAGES_UI.cardCopied(name)).then((ok) => {
            if (!ok) return
            if (timer.current) clearTimeout(timer.current)
            setCopied(true)
            timer.current = setTimeout(() => {
              timer.current = null
              setCopied(false)
            }, COPIED_STATE_MS)
          })
        }}
      >
        {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
      </ActionIcon>
    </Tooltip>
  )
}

const EXPERIENCE_ROWS = 12
const COST_ROWS = 15
const PRICE_TABS = [
  { value: 'list', label: 'List Price', key: 'avg_initial_price_by_procedure' },
  { value: 'negotiated', label: 'Negotiated Price', key: 'avg_negotiated_price_by_procedure' },
  { value: 'insurer', label: 'Insurer Responsibility', key: 'avg_insurer_price_by_procedure' },
  { value: 'patient', label: 'Patient Responsibility', key: 'avg_patient_price_by_procedure' },
] as const

/** The experience section behind Details (spec 3 §2.2, §9): procedures and conditions (12 rows), costs (15 rows). */
function Experience({ row, descriptions }: { row: HcpRow; descriptions: Record<string, string> }) {
  const f = row.features
  const hasAny =
    f.top_procedure_percentiles.length +
      f.top_diagnosis_percentiles.length +
      Object.keys(f.avg_initial_price_by_procedure).length +
      Object.keys(f.avg_negotiated_price_by_procedure).length >
    0
  if (!hasAny)
    return (
      <Text size="sm" c="dimmed">
        {CARE_MESSAGES_UI.noDetailed}
      </Text>
    )
  const table = (title: string, list: typeof f.top_procedure_percentiles, category: string) => (
    <Stack gap={4}>
      <Text fw={600} size="sm">
        {title}
      </Text>
      {list.length === 0 ? (
        <Text size="sm" c="dimmed">
          {CARE_MESSAGES_UI.noCategory(category)}
        </Text>
      ) : (
        <Table fz="sm" withRowBorders={false}>
          <Table.Tbody>
            {list.slice(0, EXPERIENCE_ROWS).map((item) => {
              const chip = percentileChip(item.percentile)
              return (
                <Table.Tr key={item.code}>
                  <Table.Td>{item.code}</Table.Td>
                  <Table.Td>{item.description ?? descriptions[item.code] ?? ''}</Table.Td>
                  <Table.Td>{item.count}</Table.Td>
                  <Table.Td>
                    <Badge color={chip.color} variant="light">
                      {chip.label}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              )
            })}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  )
  return (
    <Stack gap="sm">
      <Text size="sm">Distance: {formatMiles2(f.distance_in_miles)}</Text>
      {table('Procedures', f.top_procedure_percentiles, 'Procedure')}
      {table('Conditions', f.top_diagnosis_percentiles, 'Condition')}
      <Tabs defaultValue="list">
        <Tabs.List>
          {PRICE_TABS.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value}>
              {tab.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {PRICE_TABS.map((tab) => {
          const prices = Object.entries(f[tab.key]).slice(0, COST_ROWS)
          return (
            <Tabs.Panel key={tab.value} value={tab.value} pt="xs">
              {prices.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {CARE_MESSAGES_UI.noCategory('Cost')}
                </Text>
              ) : (
                <Table fz="sm" withRowBorders={false}>
                  <Table.Tbody>
                    {prices.map(([code, price]) => {
                      const percentile =
                        tab.value === 'patient' ? f.patient_affordability_percentiles[code] : f.negotiated_affordability_percentiles[code]
                      return (
                        <Table.Tr key={code}>
                          <Table.Td>{code}</Table.Td>
                          <Table.Td>{descriptions[code] ?? ''}</Table.Td>
                          <Table.Td>
                            {formatPrice(price)}
                            {f.price_source_by_procedure?.[code] === 'payer_file' && (
                              <Text span size="xs" c="dimmed">
                                {' '}
                                ({CARE_TEXT.carrierRate})
                              </Text>
                            )}
                          </Table.Td>
                          <Table.Td>
                            {percentile !== undefined && (
                              <Badge color={percentileChip(percentile).color} variant="light">
                                {percentileChip(percentile).label}
                              </Badge>
                            )}
                          </Table.Td>
                        </Table.Tr>
                      )
                    })}
                  </Table.Tbody>
                </Table>
              )}
            </Tabs.Panel>
          )
        })}
      </Tabs>
    </Stack>
  )
}

export function providerDetailsText(row: HcpRow): string {
  const e = row.hcp_entity
  return [
    `${e.full_name} (NPI ${e.npi})`,
    e.cms_specialization,
    `${e.address}, ${e.city}, ${e.state} ${e.zip_code}`,
    e.phone_number ? `Phone ${formatPhone(e.phone_number)}` : null,
    `Score ${scoreOf(row.final_score)} (${row.final_grade})`,
  ]
    .filter(Boolean)
    .join('\n')
}
export function facilityDetailsText(row: HcoRow): string {
  return [
    `${row.hco_name}${row.hco_npi ? ` (NPI ${row.hco_npi})` : ''}`,
    row.hco_compile_level_1,
    `${row.hco_address}, ${row.city}, ${row.state} ${row.zip_code}`,
    row.hco_phone_number ? `Phone ${formatPhone(row.hco_phone_number)}` : null,
    `Score ${scoreOf(row.final_score)} (${row.final_grade})`,
  ]
    .filter(Boolean)
    .join('\n')
}

export function ProviderCard({
  row,
  selected,
  onToggle,
  descriptions,
}: {
  row: HcpRow
  selected: boolean
  onToggle: () => void
  descriptions: Record<string, string>
}) {
  const [open, setOpen] = useState(false)
  const e = row.hcp_entity
  return (
    <Card
      withBorder
      radius="md"
      p="md"
      data-testid="provider-card"
      data-npi={e.npi}
      style={{ cursor: 'pointer', borderColor: selected ? 'var(--mantine-color-blue-5)' : undefined }}
      onClick={onToggle}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Group align="flex-start" wrap="nowrap">
          <Checkbox
            checked={selected}
            onChange={onToggle}
            onClick={(event) => event.stopPropagation()}
            aria-label={`Select ${e.full_name}`}
          />
          <Stack gap={2}>
            <Text fw={700}>{e.full_name}</Text>
            <Text size="sm" c="dimmed">
              {e.cms_specialization}
              {e.hco_name ? ` · ${e.hco_name}` : ''}
            </Text>
            <Text size="sm">
              {e.address}, {e.city}, {e.state} {e.zip_code} · {formatDistance(row.features.distance_in_miles)}
            </Text>
            <PhoneLine phone={e.phone_number} />
            <Text size="xs" c="dimmed">
              Directory confidence {Math.round(e.directory_confidence * 100)}% · verified {e.last_verified_at}
            </Text>
          </Stack>
        </Group>
        <Stack gap={4} align="flex-end">
          <CopyDetailsButton name={e.full_name} text={() => providerDetailsText(row)} />
          <Text fw={800} size="xl" data-testid="score">
            {scoreOf(row.final_score)}
          </Text>
          <Badge color={gradeColor(row.final_grade)}>{row.final_grade}</Badge>
        </Stack>
      </Group>
      <Group gap={6} mt="xs">
        <GradeBadge label="Quality" grade={row.task_scores.quality_of_care_grade} />
        <GradeBadge label="Cost" grade={row.task_scores.cost_grade} />
        <GradeBadge label="Distance" grade={row.task_scores.distance_grade} />
        {row.in_network === true && (
          <Badge color="teal" variant="outline">
            In network
          </Badge>
        )}
        {row.in_network === false && (
          <Badge color="gray" variant="outline">
            Out of network
          </Badge>
        )}
        {row.badges.map((badge) => (
          <Badge key={badge} color="grape" variant="dot">
            {badgeLabel(badge)}
          </Badge>
        ))}
      </Group>
      <Button
        variant="subtle"
        size="xs"
        mt="xs"
        onClick={(event) => {
          event.stopPropagation()
          track(CARE_ANALYTICS_EVENTS.detailsToggled, { npi: row.hcp_entity.npi, expanded: !open })
          setOpen(!open)
        }}
      >
        {open ? CARE_TEXT.showLess : CARE_TEXT.details}
      </Button>
      <Collapse expanded={open}>
        <div onClick={(event) => event.stopPropagation()}>
          <Experience row={row} descriptions={descriptions} />
        </div>
      </Collapse>
    </Card>
  )
}

export function FacilityCard({ row, selected, onToggle }: { row: HcoRow; selected: boolean; onToggle: () => void }) {
  return (
    <Card
      withBorder
      radius="md"
      p="md"
      data-testid="facility-card"
      style={{ cursor: 'pointer', borderColor: selected ? 'var(--mantine-color-blue-5)' : undefined }}
      onClick={onToggle}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Group align="flex-start" wrap="nowrap">
          <Checkbox
            checked={selected}
            onChange={onToggle}
            onClick={(event) => event.stopPropagation()}
            aria-label={`Select ${row.hco_name}`}
          />
          <Stack gap={2}>
            <Text fw={700}>{row.hco_name}</Text>
            <Text size="sm" c="dimmed">
              {row.hco_compile_level_1} · {plural(row.num_hcp_samples, 'clinician')}
            </Text>
            <Text size="sm">
              {row.hco_address}, {row.city}, {row.state} {row.zip_code} · {formatDistance(row.distance_in_miles)}
            </Text>
            <PhoneLine phone={row.hco_phone_number} />
          </Stack>
        </Group>
        <Stack gap={4} align="flex-end">
          <CopyDetailsButton name={row.hco_name} text={() => facilityDetailsText(row)} />
          <Text fw={800} size="xl">
            {scoreOf(row.final_score)}
          </Text>
          <Badge color={gradeColor(row.final_grade)}>{row.final_grade}</Badge>
        </Stack>
      </Group>
      <Group gap={6} mt="xs">
        <GradeBadge label="Quality" grade={row.task_scores.quality_of_care_grade} />
        <GradeBadge label="Cost" grade={row.task_scores.cost_grade} />
        <GradeBadge label="Distance" grade={row.task_scores.distance_grade} />
      </Group>
    </Card>
  )
}
