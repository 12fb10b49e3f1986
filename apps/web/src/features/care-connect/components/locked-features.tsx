import { Anchor, Badge, Card, Group, Radio, Stack, Text, Tooltip } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconLock } from '@tabler/icons-react'
import { env } from '../../../config/env'
import { CARE_TEXT } from '../utils/messages'

/** Spec 3 §9: the premium toast stays 6 seconds. */
export const PREMIUM_TOAST_MS = 6000

/** The locked HCPCS picker's presets (spec 3 §3, "Procedure code presets"). */
export const HCPCS_PRESETS = [
  { code: 'J0178', label: 'Aflibercept injection, 1 mg' },
  { code: 'J9035', label: 'Bevacizumab injection, 10 mg' },
  { code: 'J2778', label: 'Ranibizumab injection, 0.1 mg' },
  { code: '99213', label: 'Office outpatient visit, established' },
  { code: '99214', label: 'Office outpatient visit, detailed' },
  { code: 'G0438', label: 'Annual wellness visit, initial' },
  { code: 'G0439', label: 'Annual wellness visit, subsequent' },
] as const

export const upgradeMailto = () => `mailto:${env.contactEmail}?subject=${encodeURIComponent('Citrus Business+ upgrade')}`

/** The premium notice of a locked feature (spec 3 §8): title, message and a Learn More action, 6 seconds. */
export function showPremiumNotice(): string {
  return notifications.show({
    title: CARE_TEXT.premiumTitle,
    message: (
      <Stack gap={2}>
        <Text size="sm">{CARE_TEXT.premiumMessage}</Text>
        <Anchor href={upgradeMailto()} size="sm" fw={600}>
          {CARE_TEXT.learnMore}
        </Anchor>
      </Stack>
    ),
    color: 'yellow',
    autoClose: PREMIUM_TOAST_MS,
    withAutoCloseProgress: true,
    'data-severity': 'warning',
  })
}

function LockedCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Card
      withBorder
      radius="md"
      p="sm"
      role="button"
      tabIndex={0}
      aria-label={`${title} (${CARE_TEXT.locked})`}
      onClick={showPremiumNotice}
      onKeyDown={(event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault()
          showPremiumNotice()
        }
      }}
      style={{ cursor: 'pointer', opacity: 0.75 }}
    >
      <Group justify="space-between" wrap="nowrap">
        <Text fw={600} size="sm">
          {title}
        </Text>
        <Badge leftSection={<IconLock size={12} />} variant="light" color="yellow">
          {CARE_TEXT.locked}
        </Badge>
      </Group>
      {children}
    </Card>
  )
}

/**
 * Region scope and the locked code cards of the care search (spec 3 §4.5): the scope is national (the search
 * radius around the patient ZIP); a custom ZIP list needs the Business tier and is shown disabled with its
 * tooltip. The procedure (HCPCS) and medication (NDC) cards need Business+ and are always locked here.
 */
export function LockedFeatures() {
  return (
    <Stack gap="sm">
      <Radio.Group label={CARE_TEXT.regionScope} value="national">
        <Group gap="md" mt={6}>
          <Radio value="national" label={CARE_TEXT.national} />
          <Tooltip label={CARE_TEXT.customZipTooltip}>
            <div data-testid="custom-zips-scope">
              <Radio value="custom-zips" label={CARE_TEXT.customZips} disabled />
            </div>
          </Tooltip>
        </Group>
      </Radio.Group>
      <LockedCard title={CARE_TEXT.hcpcsCard}>
        <Text size="xs" c="dimmed">
          {HCPCS_PRESETS.map((preset) => `${preset.code} ${preset.label}`).join(' · ')}
        </Text>
      </LockedCard>
      <LockedCard title={CARE_TEXT.ndcCard}>
        <Text size="xs" c="dimmed">
          Filter by NDC medication codes
        </Text>
      </LockedCard>
    </Stack>
  )
}
