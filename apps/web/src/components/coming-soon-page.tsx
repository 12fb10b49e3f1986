import { Badge, Button, Center, Paper, Stack, Text, Title } from '@mantine/core'
import type { ClientRoute } from '@citrus/contracts'
import { Link } from 'react-router'

/** Placeholder for a documented route whose screen has not landed yet: never an empty screen. */
export function ComingSoonPage({ route }: { route: Pick<ClientRoute, 'title' | 'area' | 'path'> }) {
  return (
    <Center mih="60vh" p="xl">
      <Paper withBorder radius="lg" p="xl" maw={560} w="100%">
        <Stack align="center" ta="center" gap="sm">
          <Badge variant="light" size="lg">
            {route.area}
          </Badge>
          <Title order={1}>{route.title}</Title>
          <Text c="dimmed">
            {route.title} is part of the {route.area} app and is coming soon.
          </Text>
          <Button component={Link} to="/apps" variant="light">
            Back to Apps
          </Button>
        </Stack>
      </Paper>
    </Center>
  )
}
