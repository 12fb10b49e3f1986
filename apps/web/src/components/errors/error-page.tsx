import { Button, Center, Stack, Text, Title } from '@mantine/core'
import { Link } from 'react-router'
import { NOT_FOUND_MESSAGE } from './messages'

export interface ErrorPageProps {
  code?: number | string
  message?: string
}

/** The error / not-found page (spec 1 §2): code default 404, Back Home goes to /apps. */
export function ErrorPage({ code = 404, message = NOT_FOUND_MESSAGE }: ErrorPageProps) {
  return (
    <Center mih="100vh" p="xl">
      <Stack align="center" gap="md" maw={520} ta="center">
        <Title order={1} fz={96} c="citrus.7" lh={1}>
          {code}
        </Title>
        <Text size="lg" c="dimmed">
          {message}
        </Text>
        <Button component={Link} to="/apps" size="md">
          Back Home
        </Button>
      </Stack>
    </Center>
  )
}
