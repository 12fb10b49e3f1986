import { ActionIcon, Code, Table, Text, Tooltip } from '@mantine/core'
import { IconMailForward, IconPencil } from '@tabler/icons-react'
import type { KeyboardEvent, MouseEvent } from 'react'
import type { Company } from '../api/companies'
import { SUPER_ADMIN_MESSAGES } from '../utils/messages'

export interface CompaniesTableProps {
  companies: readonly Company[]
  onOpen: (company: Company) => void
  onOnboard: (company: Company) => void
  onEdit: (company: Company) => void
}

/** ID, Company Name, Activation Key, Onboard Users, Edit; a row opens the company's users (spec 1 §2). */
export function CompaniesTable({ companies, onOpen, onOnboard, onEdit }: CompaniesTableProps) {
  const only = (action: () => void) => (event: MouseEvent) => {
    event.stopPropagation()
    action()
  }
  const onKey = (company: Company) => (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget) return
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault()
      onOpen(company)
    }
  }
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table verticalSpacing="sm" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={70}>ID</Table.Th>
            <Table.Th>Company Name</Table.Th>
            <Table.Th>Activation Key</Table.Th>
            <Table.Th w={130} ta="center">
              Onboard Users
            </Table.Th>
            <Table.Th w={70} ta="center">
              Edit
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {companies.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={5}>
                <Text c="dimmed" ta="center" py="lg">
                  {SUPER_ADMIN_MESSAGES.noCompanies}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            companies.map((company) => (
              <Table.Tr
                key={company.id}
                onClick={() => onOpen(company)}
                onKeyDown={onKey(company)}
                tabIndex={0}
                style={{ cursor: 'pointer' }}
                aria-label={`Open the users of ${company.company_name}`}
              >
                <Table.Td>{company.id}</Table.Td>
                <Table.Td fw={600}>{company.company_name}</Table.Td>
                <Table.Td>
                  <Code style={{ wordBreak: 'break-all' }}>{company.activation_key}</Code>
                </Table.Td>
                <Table.Td ta="center">
                  <Tooltip label="Send onboarding email" withArrow>
                    <ActionIcon variant="light" aria-label={`Send onboarding email for ${company.company_name}`} onClick={only(() => onOnboard(company))}>
                      <IconMailForward size={18} />
                    </ActionIcon>
                  </Tooltip>
                </Table.Td>
                <Table.Td ta="center">
                  <Tooltip label="Edit company" withArrow>
                    <ActionIcon variant="subtle" aria-label={`Edit ${company.company_name}`} onClick={only(() => onEdit(company))}>
                      <IconPencil size={18} />
                    </ActionIcon>
                  </Tooltip>
                </Table.Td>
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}
