import { Button, Center, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconLock } from '@tabler/icons-react'
import { Link } from 'react-router'
import { homeActionLabel } from '../../lib/navigation'
import { useHomePath } from '../layouts/use-viewer'
import { accessDeniedMessage } from './messages'

/** Access Denied page (spec 1 §2) for a product the company does not hold; its button goes to the viewer's home. */
export function AccessDeniedPage({ product }: { product: string }) {
  const home = useHomePath()
  return (
    <Center mih="60vh" p="xl">
      <Stack align="center" ta="center" gap="md" maw={560}>
        <ThemeIcon size={64} radius="xl" variant="light" color="red">
          <IconLock size={32} />
        </ThemeIcon>
        <Title order={2}>Access Denied</Title>
        <Text c="dimmed">{accessDeniedMessage(product)}</Text>
        {home && (
          <Button component={Link} to={home}>
            {homeActionLabel(home)}
          </Button>
        )}
      </Stack>
    </Center>
  )
}
