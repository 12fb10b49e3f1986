import { Button, Group, Paper, Stack, Text } from '@mantine/core'
import { IconMailForward } from '@tabler/icons-react'
import { RoleBadge } from '../../../components/data/role-badge'
import { DataTable } from '../../../components/data/data-table'
import { TablePagination } from '../../../components/data/table-pagination'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import type { UseQueryResult } from '@tanstack/react-query'
import { apiMessageOf } from '../../../lib/api-client'
import { pageItems, usePagination } from '../../../lib/pagination'
import type { Seat } from '../api/team'
import { TEAM_MESSAGES } from '../utils/messages'

/** Users tab: No., Email, Role and the Send Onboarding Email button (spec 1 §2). */
export function UsersTab({ seats, onRetry, onInvite }: { seats: UseQueryResult<Seat[]>; onRetry: () => void; onInvite: () => void }) {
  const users = seats.status === 'success' ? seats.data : []
  const pagination = usePagination(users.length)
  const offset = (pagination.page - 1) * pagination.size
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Text c="dimmed" size="sm">
          {seats.status === 'success'
            ? `${users.length} active ${users.length === 1 ? 'seat' : 'seats'}`
            : 'Active seats of your organization'}
        </Text>
        <Button leftSection={<IconMailForward size={18} />} onClick={onInvite}>
          Send Onboarding Email
        </Button>
      </Group>
      <Paper withBorder radius="lg" p="md">
        {seats.status === 'pending' && <PageLoader />}
        {seats.status === 'error' && (
          <EmptyState
            type="error"
            variant="inline"
            title={TEAM_MESSAGES.usersFailed}
            message={apiMessageOf(seats.error, '')}
            action={{ label: 'Try Again', onClick: onRetry }}
          />
        )}
        {seats.status === 'success' && (
          <>
            <DataTable
              minWidth={480}
              rows={pageItems(users, pagination.page, pagination.size)}
              rowKey={(user) => user.id}
              empty={TEAM_MESSAGES.noUsers}
              columns={[
                { key: 'no', header: 'No.', width: 80, render: (_user, index) => offset + index + 1 },
                { key: 'email', header: 'Email', render: (user) => user.email },
                {
                  key: 'role',
                  header: 'Role',
                  render: (user) => <RoleBadge role={user.role} />,
                },
              ]}
            />
            <TablePagination pagination={pagination} total={users.length} />
          </>
        )}
      </Paper>
    </Stack>
  )
}
