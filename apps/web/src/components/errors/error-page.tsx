import { Button, Center, Stack, Text, Title } from '@mantine/core'
import { Link, useNavigate } from 'react-router'
import { useHomePath } from '../layouts/use-viewer'
import { NOT_FOUND_MESSAGE } from './messages'

export interface ErrorPageProps {
  code?: number | string
  message?: string
}

/**
 * The error / not-found page (spec 1 §2): code default 404. Back Home goes to the viewer's home (/apps, or
 * /price-check for a member); a shared-link visitor, who has no home, gets Go Back instead.
 */
export function ErrorPage({ code = 404, message = NOT_FOUND_MESSAGE }: ErrorPageProps) {
  const home = useHomePath()
  const navigate = useNavigate()
  return (
    <Center mih="100vh" p="xl">
      <Stack align="center" gap="md" maw={520} ta="center">
        <Title order={1} fz={96} c="citrus.7" lh={1}>
          {code}
        </Title>
        <Text size="lg" c="dimmed">
          {message}
        </Text>
        {home ? (
          <Button component={Link} to={home} size="md">
            Back Home
          </Button>
        ) : (
          <Button size="md" variant="default" onClick={() => navigate(-1)}>
            Go Back
          </Button>
        )}
      </Stack>
    </Center>
  )
}
