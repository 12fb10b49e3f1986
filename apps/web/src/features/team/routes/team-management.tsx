import { ADMIN_INVITABLE_ROLES } from '@citrus/contracts'
import { Container, Stack } from '@mantine/core'
import { IconCoins, IconUsers } from '@tabler/icons-react'
import { useState } from 'react'
import { PageHeader } from '../../../components/layouts/page-header'
import { TabHeader, useUrlTab } from '../../../components/layouts/tab-header'
import { OnboardingEmailDialog } from '../../../components/onboarding-email/onboarding-email-dialog'
import { useAsync } from '../../../hooks/use-async'
import { getActivationKey, getActiveSeats, getProductUsage } from '../api/team'
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
  const seats = useAsync(getActiveSeats, [])
  const activationKey = useAsync(getActivationKey, [])
  const usage = useAsync(getProductUsage, [])
  const [active] = useUrlTab(TEAM_TABS)
  const [inviting, setInviting] = useState(false)

  return (
    <Container size="lg" py="lg">
      <Stack gap="lg">
        <PageHeader title="Team Management" description="Manage your organization's seats, invite users and see your product credits." />
        <TabHeader tabs={TEAM_TABS} />
        {active === 'products' ? (
          <ProductsTab usage={usage} onRetry={usage.reload} />
        ) : (
          <UsersTab seats={seats} onRetry={seats.reload} onInvite={() => setInviting(true)} />
        )}
      </Stack>
      <OnboardingEmailDialog
        opened={inviting}
        onClose={() => setInviting(false)}
        roles={ADMIN_INVITABLE_ROLES}
        activationKey={activationKey.status === 'success' ? activationKey.data : null}
      />
    </Container>
  )
}
