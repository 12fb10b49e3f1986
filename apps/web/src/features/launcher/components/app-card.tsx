import { Box, Card, Chip, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconCurrencyDollar, IconMap, IconSparkles, IconStethoscope } from '@tabler/icons-react'
import { AppStatusBadge } from '../../../components/brand/app-status-badge'
import type { LauncherApp } from '../utils/apps'

const ICONS = {
  atlas: <IconMap size={26} />,
  nova: <IconSparkles size={26} />,
  care: <IconStethoscope size={26} />,
  price: <IconCurrencyDollar size={26} />,
}

/** A launcher card: at most two features are shown as chips. */
export function AppCard({ app, onOpen }: { app: LauncherApp; onOpen: (app: LauncherApp) => void }) {
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      shadow="xs"
      component="button"
      type="button"
      onClick={() => onOpen(app)}
      aria-label={`Open ${app.title}`}
      style={{ textAlign: 'left', cursor: 'pointer', height: '100%' }}
    >
      <Card.Section
        h={96}
        style={{
          background: app.image
            ? `center / cover no-repeat url(${app.image})`
            : 'linear-gradient(135deg, var(--mantine-color-citrus-1), var(--mantine-color-citrus-4))',
        }}
      >
        <Group h="100%" px="lg" justify="space-between">
          <ThemeIcon size={48} radius="md" variant="white">
            {ICONS[app.icon]}
          </ThemeIcon>
          {app.status && <AppStatusBadge status={app.status} />}
        </Group>
      </Card.Section>
      <Stack gap={6} mt="md">
        <Text size="xs" tt="uppercase" fw={700} c="dimmed">
          {app.category}
        </Text>
        <Title order={3} fz="lg">
          {app.title}
        </Title>
        <Text size="sm" fw={600} c="citrus.8">
          {app.subtitle}
        </Text>
        <Text size="sm" c="dimmed" lineClamp={3}>
          {app.description}
        </Text>
        <Box mt={4}>
          <Group gap={6}>
            {app.features.slice(0, 2).map((feature) => (
              <Chip key={feature} size="xs" checked={false} readOnly variant="light">
                {feature}
              </Chip>
            ))}
          </Group>
        </Box>
      </Stack>
    </Card>
  )
}
