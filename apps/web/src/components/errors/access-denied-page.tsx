import { Button, Center, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconLock } from '@tabler/icons-react'
import { Link } from 'react-router'
import { accessDeniedMessage } from './messages'

/** Access Denied page (spec 1 §2) for a product the company does not hold. */
export function AccessDeniedPage({ product }: { product: string }) {
  return (
    <Center mih="60vh" p="xl">
      <Stack align="center" ta="center" gap="md" maw={560}>
        <ThemeIcon size={64} radius="xl" variant="light" color="red">
          <IconLock size={32} />
        </ThemeIcon>
        <Title order={2}>Access Denied</Title>
        <Text c="dimmed">{accessDeniedMessage(product)}</Text>
        <Button component={Link} to="/apps">
          Back to Apps
        </Button>
      </Stack>
    </Center>
  )
}
