import { Container, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { RoleBadge } from '../../../components/data/role-badge'
import { useSession } from '../../../lib/session'
import { AppsRoute } from './apps'

function Field({ label, value }: { label: string; value: string | null | undefined }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text>{value || '—'}</Text>
    </Stack>
  )
}

/** /user-settings: the signed-in user's profile above the launcher (spec 1 §2: "shows the launcher"). */
export function UserSettingsRoute() {
  const { user, role } = useSession()
  return (
    <Stack gap={0}>
      <Container size="lg" w="100%" pt="lg">
        <Paper withBorder radius="lg" p="lg">
          <Group justify="space-between" mb="md">
            <Title order={2} fz="lg">
              Profile
            </Title>
            <RoleBadge role={role} />
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Field label="Email" value={user?.email} />
            <Field label="Company" value={user?.companyName} />
            <Field label="Phone" value={user?.phoneNumber} />
          </SimpleGrid>
        </Paper>
      </Container>
      <AppsRoute />
    </Stack>
  )
}
