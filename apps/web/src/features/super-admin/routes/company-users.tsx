import { Anchor, Badge, Container, Paper, Stack, Table, Text } from '@mantine/core'
import { IconArrowLeft } from '@tabler/icons-react'
import { Link, useParams } from 'react-router'
import { TablePagination } from '../../../components/data/table-pagination'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import { PageHeader } from '../../../components/layouts/page-header'
import { useAsync } from '../../../hooks/use-async'
import { formatDateTime } from '../../../lib/format'
import { pageItems, usePagination } from '../../../lib/pagination'
import { getCompanyUsers } from '../api/companies'
import { SUPER_ADMIN_MESSAGES } from '../utils/messages'

/** /company/{companyId}/users (citrus): the company's users (spec 1 §2). */
export function CompanyUsersRoute() {
  const { companyId = '' } = useParams()
  const users = useAsync(() => getCompanyUsers(companyId), [companyId])
  const list = users.status === 'success' ? users.data : []
  const pagination = usePagination(list.length)

  return (
    <Container size="lg" py="lg">
      <Stack gap="lg">
        <Anchor component={Link} to="/citrus-admin" size="sm">
          <IconArrowLeft size={14} style={{ verticalAlign: 'middle' }} /> Back to companies
        </Anchor>
        <PageHeader title={SUPER_ADMIN_MESSAGES.companyUsersTitle(companyId)} />
        <Paper withBorder radius="lg" p="md">
          {users.status === 'loading' && <PageLoader />}
          {users.status === 'error' && (
            <EmptyState type="error" variant="inline" title={SUPER_ADMIN_MESSAGES.usersFailed} message="" action={{ label: 'Try Again', onClick: users.reload }} />
          )}
          {users.status === 'success' && (
            <>
              <Table.ScrollContainer minWidth={560}>
                <Table verticalSpacing="sm" highlightOnHover>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th w={80}>ID</Table.Th>
                      <Table.Th>Email</Table.Th>
                      <Table.Th>Role</Table.Th>
                      <Table.Th>Created @</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {list.length === 0 ? (
                      <Table.Tr>
                        <Table.Td colSpan={4}>
                          <Text c="dimmed" ta="center" py="lg">
                            {SUPER_ADMIN_MESSAGES.noUsers}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    ) : (
                      pageItems(list, pagination.page, pagination.size).map((user) => (
                        <Table.Tr key={user.id}>
                          <Table.Td>{user.id}</Table.Td>
                          <Table.Td>
                            {user.email}
                            {user.is_active === false && (
                              <Badge ml="xs" size="xs" color="gray" variant="outline">
                                inactive
                              </Badge>
                            )}
                          </Table.Td>
                          <Table.Td>
                            <Badge variant="light">{user.role}</Badge>
                          </Table.Td>
                          <Table.Td>{formatDateTime(user.created_at) ?? '—'}</Table.Td>
                        </Table.Tr>
                      ))
                    )}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              <TablePagination pagination={pagination} total={list.length} />
            </>
          )}
        </Paper>
      </Stack>
    </Container>
  )
}
