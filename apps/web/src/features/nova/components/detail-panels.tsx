import { formatUsPhone, type NovaInsight } from '@citrus/contracts'
import { Anchor, Group, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import { useFacilityInsight } from '../api/nova'
import { NOVA_CLIENT_MESSAGES } from '../utils/messages'
import { SaveToHubSlot } from './hub-slots'
import { BadgeRow, MetricTabs, PanelCard, PayerMix, SpecialtyChart, TopPrescribers } from './insight-parts'

function Field({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500}>
        {value === null || value === undefined || value === '' ? '—' : value}
      </Text>
    </Stack>
  )
}

function PanelHeader({ insight, kind }: { insight: NovaInsight; kind: string }) {
  return (
    <Group justify="space-between" align="flex-start" wrap="nowrap">
      <Stack gap={4} miw={0}>
        <Text size="xs" c="dimmed" tt="uppercase">
          {kind}
        </Text>
        <Title order={3} fz="lg">
          {insight.display_name}
        </Title>
        <BadgeRow badges={insight.badges} />
      </Stack>
      <SaveToHubSlot insight={insight} />
    </Group>
  )
}

/** Health system panel: name, healthsystem_id, control type (default Private), counts, phones, website, top prescribers (4). */
export function HealthSystemPanel({ insight }: { insight: NovaInsight }) {
  const e = insight.entity
  return (
    <PanelCard>
      <PanelHeader insight={insight} kind={insight.entity_type === 'HEALTH_SYSTEM' ? 'Health System' : 'Independent Facility'} />
      <Text size="sm">{insight.summary_md.replace(/\*\*/g, '')}</Text>
      {insight.entity_type === 'HEALTH_SYSTEM' ? (
        <SimpleGrid cols={{ base: 2, md: 3 }} spacing="sm">
          <Field label="Health System ID" value={e.healthsystem_id} />
          <Field label="Control Type" value={e.control_type || 'Private'} />
          <Field label="Hospitals Owned" value={e.number_of_hospitals_owned} />
          <Field label="Facilities Owned" value={e.number_of_facilities_owned} />
          <Field label="Affiliated HCPs" value={e.number_of_affiliated_hcps} />
          <Field label="Phone Numbers" value={(e.phone_numbers ?? []).map(formatUsPhone).join(', ')} />
          <Field
            label="Website"
            value={
              e.website_domain ? (
                <Anchor href={`https://${e.website_domain}`} target="_blank" rel="noreferrer">
                  {e.website_domain}
                </Anchor>
              ) : null
            }
          />
        </SimpleGrid>
      ) : (
        <FacilityFields insight={insight} />
      )}
      <MetricTabs insight={insight} />
      <TopPrescribers insight={insight} max={insight.entity_type === 'HEALTH_SYSTEM' ? 4 : 8} />
      <SpecialtyChart insight={insight} />
      <PayerMix insight={insight} />
    </PanelCard>
  )
}

function FacilityFields({ insight }: { insight: NovaInsight }) {
  const e = insight.entity
  return (
    <SimpleGrid cols={{ base: 2, md: 3 }} spacing="sm">
      <Field label="NPI" value={e.npi} />
      <Field label="Facility Type" value={e.facility_type_level_1 || 'Hospital'} />
      <Field label="Phone" value={formatUsPhone(e.phone_number)} />
      <Field label="Location" value={[e.city, e.state].filter(Boolean).join(', ')} />
      <Field label="Latitude" value={e.latitude?.toFixed(4)} />
      <Field label="Longitude" value={e.longitude?.toFixed(4)} />
    </SimpleGrid>
  )
}

/** Facility panel from insights/facility/{npi}: details, metrics, top prescribers (8), specialties, payer mix. */
export function FacilityPanel({ npi, useCase }: { npi: string; useCase: string }) {
  const query = useFacilityInsight(npi, useCase)
  if (query.isPending) return <PageLoader />
  if (query.isError) {
    return (
      <EmptyState
        type="error"
        variant="card"
        title={NOVA_CLIENT_MESSAGES.facilityFailed}
        message={query.error.message}
        action={{ label: 'Try Again', onClick: () => void query.refetch() }}
      />
    )
  }
  const insight = query.data
  return (
    <PanelCard>
      <PanelHeader insight={insight} kind="Hospital" />
      <Text size="sm">{insight.summary_md.replace(/\*\*/g, '')}</Text>
      <FacilityFields insight={insight} />
      <MetricTabs insight={insight} />
      <TopPrescribers insight={insight} max={8} />
      <SpecialtyChart insight={insight} />
      <PayerMix insight={insight} />
    </PanelCard>
  )
}

/** Provider panel: npi, full name, title, phone, years in practice, age, patient counts, metrics. */
export function ProviderPanel({ insight }: { insight: NovaInsight }) {
  const e = insight.entity
  return (
    <PanelCard>
      <PanelHeader insight={insight} kind="Provider" />
      <SimpleGrid cols={{ base: 2, md: 3 }} spacing="sm">
        <Field label="NPI" value={e.npi} />
        <Field label="Full Name" value={e.full_name} />
        <Field label="Title" value={e.title} />
        <Field label="Specialty" value={e.cms_specialization} />
        <Field label="Phone" value={formatUsPhone(e.phone_number)} />
        <Field label="Years in Practice" value={e.years_in_practice} />
        <Field label="Age" value={e.age} />
        <Field label="Patients Last Year" value={e.last_year_patient_count} />
        <Field label="New Patients Last Month" value={e.last_month_new_patient_count} />
      </SimpleGrid>
      <MetricTabs insight={insight} emptyText={NOVA_CLIENT_MESSAGES.noProviderMetrics} />
    </PanelCard>
  )
}

export type DetailLevel = 'health_system' | 'hospital' | 'provider'

/**
 * The Market Analytics detail area: the panel of each drill level, with the prompt of a level that has no
 * selection yet ('Explore Health Systems' before anything is picked).
 */
export function DetailArea({
  system,
  hospitalNpi,
  provider,
  useCase,
}: {
  system: NovaInsight | null
  hospitalNpi: string
  provider: NovaInsight | null
  useCase: string
}) {
  const deepest: DetailLevel = provider ? 'provider' : hospitalNpi ? 'hospital' : 'health_system'
  const [chosen, setChosen] = useState<DetailLevel | null>(null)
  const level = chosen ?? deepest
  if (!system && !hospitalNpi) {
    return (
      <EmptyState type="info" title={NOVA_CLIENT_MESSAGES.exploreHealthSystems} message={NOVA_CLIENT_MESSAGES.exploreHealthSystemsHint} />
    )
  }
  return (
    <Stack gap="md">
      <SegmentedControl
        value={level}
        onChange={(v) => setChosen(v as DetailLevel)}
        data={[
          { value: 'health_system', label: 'Health System' },
          { value: 'hospital', label: 'Hospital' },
          { value: 'provider', label: 'Provider' },
        ]}
      />
      {level === 'health_system' &&
        (system ? (
          <HealthSystemPanel insight={system} />
        ) : (
          <EmptyState type="info" title={NOVA_CLIENT_MESSAGES.noHealthSystemSelected} message="" />
        ))}
      {level === 'hospital' &&
        (hospitalNpi ? (
          <FacilityPanel npi={hospitalNpi} useCase={useCase} />
        ) : (
          <EmptyState type="info" title={NOVA_CLIENT_MESSAGES.noHospitalSelected} message="" />
        ))}
      {level === 'provider' &&
        (provider ? (
          <ProviderPanel insight={provider} />
        ) : (
          <EmptyState type="info" title={NOVA_CLIENT_MESSAGES.noProviderSelected} message="" />
        ))}
    </Stack>
  )
}
