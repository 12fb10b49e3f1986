import { productServiceName } from '@citrus/contracts'
import { Anchor, Badge, Group, List, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconBuildingSkyscraper, IconFlask } from '@tabler/icons-react'
import { DataTable } from '../../../components/data/data-table'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import type { UseQueryResult } from '@tanstack/react-query'
import { apiMessageOf } from '../../../lib/api-client'
import type { ProductUsageRow } from '../api/team'
import { TEAM_MESSAGES, seatUpgradeMailto } from '../utils/messages'

/** Product usage table height (spec 1 §9). */
export const USAGE_TABLE_MAX_HEIGHT = 300

export const planType = (product: Pick<ProductUsageRow, 'is_infinite'>) =>
  product.is_infinite ? TEAM_MESSAGES.unlimited : TEAM_MESSAGES.limited
export const remainingCredits = (product: Pick<ProductUsageRow, 'is_infinite' | 'remaining_count'>) =>
  product.is_infinite || product.remaining_count === null ? '∞' : product.remaining_count.toLocaleString('en-US')

export const TRIAL_TIER_LIMITED =
  'Your organization is on a trial plan with a limited number of requests and services. Contact us to upgrade your plan.'
export const TRIAL_TIER_UNLIMITED =
  'Your organization is on a trial plan with unlimited requests for every service it holds. Contact us to upgrade your plan.'

/** The trial card says 'limited' only while some service is limited (or the usage is not known yet). */
export const trialTierText = (products: readonly Pick<ProductUsageRow, 'is_infinite'>[] | undefined) =>
  products && products.length > 0 && products.every((product) => product.is_infinite) ? TRIAL_TIER_UNLIMITED : TRIAL_TIER_LIMITED

function ServicesTable({ products }: { products: readonly ProductUsageRow[] }) {
  return (
    <DataTable
      maxHeight={USAGE_TABLE_MAX_HEIGHT}
      highlightOnHover={false}
      data-testid="product-usage-scroll"
      rows={products}
      rowKey={(product) => product.id}
      empty={TEAM_MESSAGES.noUsage}
      columns={[
        { key: 'service', header: 'Service', cellProps: { fw: 600 }, render: (product) => productServiceName(product.product_group) },
        { key: 'remaining', header: 'Remaining Credits', render: (product) => remainingCredits(product) },
        {
          key: 'plan',
          header: 'Plan Type',
          render: (product) => (
            <Badge variant="light" color={product.is_infinite ? 'citrus' : 'gray'}>
              {planType(product)}
            </Badge>
          ),
        },
      ]}
    />
  )
}

/** Products and Credits tab: trial tier card, Services table, Enterprise Access card (spec 1 §2). */
export function ProductsTab({ usage, onRetry }: { usage: UseQueryResult<ProductUsageRow[]>; onRetry: () => void }) {
  return (
    <Stack gap="lg">
      <Paper withBorder radius="lg" p="lg">
        <Group gap="md" wrap="nowrap" align="flex-start">
          <ThemeIcon size={44} radius="md" variant="light">
            <IconFlask size={24} />
          </ThemeIcon>
          <Stack gap={4}>
            <Title order={2} fz="lg">
              Business Trial Tier
            </Title>
            <Text size="sm" c="dimmed">
              {trialTierText(usage.status === 'success' ? usage.data : undefined)}
            </Text>
          </Stack>
        </Group>
      </Paper>
      <Paper withBorder radius="lg" p="md">
        <Title order={2} fz="lg" mb="sm">
          Services
        </Title>
        {usage.status === 'pending' && <PageLoader />}
        {usage.status === 'error' && (
          <EmptyState
            type="error"
            variant="inline"
            title={TEAM_MESSAGES.usageFailed}
            message={apiMessageOf(usage.error, '')}
            action={{ label: 'Try Again', onClick: onRetry }}
          />
        )}
        {usage.status === 'success' && <ServicesTable products={usage.data} />}
      </Paper>
      <SimpleGrid cols={{ base: 1 }}>
        <Paper withBorder radius="lg" p="lg">
          <Group gap="md" wrap="nowrap" align="flex-start">
            <ThemeIcon size={44} radius="md" variant="light" color="orange">
              <IconBuildingSkyscraper size={24} />
            </ThemeIcon>
            <Stack gap="xs">
              <Title order={2} fz="lg">
                Enterprise Access
              </Title>
              <List size="sm" spacing={4}>
                <List.Item>Bespoke healthcare data pulls</List.Item>
                <List.Item>Increased credits</List.Item>
                <List.Item>Seats for your whole team</List.Item>
              </List>
              <Text size="sm">
                Need more seats?{' '}
                <Anchor href={seatUpgradeMailto()} fw={600}>
                  Contact us
                </Anchor>{' '}
                to upgrade.
              </Text>
            </Stack>
          </Group>
        </Paper>
      </SimpleGrid>
    </Stack>
  )
}
