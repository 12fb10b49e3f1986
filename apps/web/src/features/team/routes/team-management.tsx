import { ADMIN_INVITABLE_ROLES } from '@citrus/contracts'
import { Container, Stack } from '@mantine/core'
import { IconCoins, IconUsers } from '@tabler/icons-react'
import { useState } from 'react'
import { PageHeader } from '../../../components/layouts/page-header'
import { TabHeader, useUrlTab } from '../../../components/layouts/tab-header'
import { OnboardingEmailDialog } from '../../../components/onboarding-email/onboarding-email-dialog'
import { useActivationKey, useActiveSeats, useProductUsage } from '../api/team'
import { ProductsTab } from '../components/products-tab'
import { UsersTab } from '../components/users-tab'

export const TEAM_TABS = [
  { id: 'users', label: 'Users', icon: <IconUsers size={16} /> },
  { id: 'products', label: 'Products and Credits', icon: <IconCoins size={16} /> },
] as const

/**
 * /team-management (admin, citrus): seats, activation key and product usage are fetched together and
 * each can fail on its own (spec 1 §7).
 */
export function TeamManagementRoute() {
  const seats = useActiveSeats()
  const activationKey = useActivationKey()
  const usage = useProductUsage()
  const [active] = useUrlTab(TEAM_TABS)
  const [inviting, setInviting] = useState(false)

  return (
    <Container size="lg" py="lg">
      <Stack gap="lg">
        <PageHeader title="Team Management" description="Manage your organization's seats, invite users and see your product credits." />
        <TabHeader tabs={TEAM_TABS} />
        {active === 'products' ? (
          <ProductsTab usage={usage} onRetry={() => void usage.refetch()} />
        ) : (
          <UsersTab seats={seats} onRetry={() => void seats.refetch()} onInvite={() => setInviting(true)} />
        )}
      </Stack>
      <OnboardingEmailDialog
        opened={inviting}
        onClose={() => setInviting(false)}
        roles={ADMIN_INVITABLE_ROLES}
        activationKey={activationKey.data ?? null}
      />
    </Container>
  )
}
