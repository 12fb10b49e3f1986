import { Badge, Button, Center, Group, Paper, Stack, Text, Title } from '@mantine/core'
import type { ClientRoute } from '@citrus/contracts'
import { Link, useLocation } from 'react-router'
import { APP_STATUS, AppStatusBadge } from './brand/app-status-badge'
import { useHomePath } from './layouts/use-viewer'
import { homeActionLabel } from '../lib/navigation'

/** Placeholder for a documented route whose screen has not landed yet: never an empty screen. */
export function ComingSoonPage({ route }: { route: Pick<ClientRoute, 'title' | 'area' | 'path'> }) {
  const home = useHomePath()
  const { pathname } = useLocation()
  const status = APP_STATUS[route.area]
  return (
    <Center mih="60vh" p="xl">
      <Paper withBorder radius="lg" p="xl" maw={560} w="100%">
        <Stack align="center" ta="center" gap="sm">
          <Group gap="xs" justify="center">
            <Badge variant="light" size="lg">
              {route.area}
            </Badge>
            {status && <AppStatusBadge status={status} size="lg" />}
          </Group>
          <Title order={1}>{route.title}</Title>
          <Text c="dimmed">
            {route.title} is part of the {route.area} app and is coming soon.
          </Text>
          {home && home !== pathname && (
            <Button component={Link} to={home} variant="light">
              {homeActionLabel(home)}
            </Button>
          )}
        </Stack>
      </Paper>
    </Center>
  )
}
