import { Alert, Container, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { IconLock } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { EmptyState } from '../../../components/feedback/empty-state'
import { InlineLoader } from '../../../components/feedback/loading'
import { env } from '../../../config/env'
import { track } from '../../../lib/analytics'
import { useProducts } from '../../../lib/products'
import { useSession } from '../../../lib/session'
import { AppCard } from '../components/app-card'
import { LAUNCHER_APPS, LAUNCHER_SUBTITLE, hasAccess, productUnavailableMessage, visibleApps, type LauncherApp } from '../utils/apps'

/** The app launcher (/, /apps, /user-settings). */
export function AppsRoute() {
  const session = useSession()
  const products = useProducts()
  const navigate = useNavigate()
  const [unavailable, setUnavailable] = useState(false)
  const apps = visibleApps(LAUNCHER_APPS, session.role, products.groups)

  function open(app: LauncherApp) {
    track('product_app_clicked', { app: app.id, product_group: app.productGroup })
    if (!hasAccess(app, products.groups)) {
      setUnavailable(true)
      return
    }
    navigate(app.url)
  }

  return (
    <Container size="lg" py="lg">
      <Stack gap="lg">
        <Stack gap={4}>
          <Title order={1}>{session.user?.companyName ? `${session.user.companyName} Apps` : 'Apps'}</Title>
          <Text c="dimmed">{LAUNCHER_SUBTITLE}</Text>
        </Stack>
        {unavailable && (
          <Alert
            color="orange"
            icon={<IconLock size={18} />}
            title="Product Unavailable"
            withCloseButton
            onClose={() => setUnavailable(false)}
          >
            {productUnavailableMessage(env.contactEmail)}
          </Alert>
        )}
        {products.status === 'loading' ? (
          <InlineLoader />
        ) : apps.length === 0 ? (
          <EmptyState type="no-data" items="Apps" />
        ) : (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="lg">
            {apps.map((app) => (
              <AppCard key={app.id} app={app} onOpen={open} />
            ))}
          </SimpleGrid>
        )}
      </Stack>
    </Container>
  )
}
