import { Button, Center, Stack, Text, Title } from '@mantine/core'
import { Link } from 'react-router'
import { NOT_AUTHORIZED_MESSAGE, NOT_AUTHORIZED_TITLE } from './messages'

/** Shown when a guest visits a path outside the shared link's routes (spec 1 §2). */
export function NotAuthorizedPage() {
  return (
    <Center mih="100vh" p="xl">
      <Stack align="center" ta="center" gap="md" maw={520}>
        <Title order={1} fz={72} c="citrus.7" lh={1}>
          403
        </Title>
        <Title order={2}>{NOT_AUTHORIZED_TITLE}</Title>
        <Text c="dimmed">{NOT_AUTHORIZED_MESSAGE}</Text>
        <Button component={Link} to="/sign-in">
          Go to Sign In
        </Button>
      </Stack>
    </Center>
  )
}
