import { Anchor, Badge, Container, Paper, Stack } from '@mantine/core'
import { IconArrowLeft } from '@tabler/icons-react'
import { Link, useParams } from 'react-router'
import { RoleBadge } from '../../../components/data/role-badge'
import { DataTable } from '../../../components/data/data-table'
import { TablePagination } from '../../../components/data/table-pagination'
import { QueryStatus } from '../../../components/feedback/query-status'
import { PageHeader } from '../../../components/layouts/page-header'
import { formatDateTime } from '../../../lib/format'
import { pageItems, usePagination } from '../../../lib/pagination'
import { useCompanyUsers } from '../api/companies'
import { SUPER_ADMIN_MESSAGES } from '../utils/messages'

/** /company/{companyId}/users (citrus): the company's users (spec 1 §2). */
export function CompanyUsersRoute() {
  const { companyId = '' } = useParams()
  const users = useCompanyUsers(companyId)
  const list = users.data ?? []
  const pagination = usePagination(list.length)

  return (
    <Container size="lg" py="lg">
      <Stack gap="lg">
        <Anchor component={Link} to="/citrus-admin" size="sm">
          <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> Back to companies
        </Anchor>
        <PageHeader title={SUPER_ADMIN_MESSAGES.companyUsersTitle(companyId)} />
        <Paper withBorder radius="lg" p="md">
          <QueryStatus query={users} errorTitle={SUPER_ADMIN_MESSAGES.usersFailed} />
          {users.isSuccess && (
            <>
              <DataTable
                minWidth={560}
                rows={pageItems(list, pagination.page, pagination.size)}
                rowKey={(user) => user.id}
                empty={SUPER_ADMIN_MESSAGES.noUsers}
                columns={[
                  { key: 'id', header: 'ID', width: 80, render: (user) => user.id },
                  {
                    key: 'email',
                    header: 'Email',
                    render: (user) => (
                      <>
                        {user.email}
                        {user.is_active === false && (
                          <Badge ml="xs" size="xs" color="gray" variant="outline">
                            inactive
                          </Badge>
                        )}
                      </>
                    ),
                  },
                  { key: 'role', header: 'Role', render: (user) => <RoleBadge role={user.role} /> },
                  { key: 'created', header: 'Created @', render: (user) => formatDateTime(user.created_at) ?? '—' },
                ]}
              />
              <TablePagination pagination={pagination} total={list.length} />
            </>
          )}
        </Paper>
      </Stack>
    </Container>
  )
}
