import { ActionIcon, Code, Tooltip } from '@mantine/core'
import { IconMailForward, IconPencil } from '@tabler/icons-react'
import type { MouseEvent } from 'react'
import { DataTable } from '../../../components/data/data-table'
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
  return (
    <DataTable
      minWidth={760}
      rows={companies}
      rowKey={(company) => company.id}
      empty={SUPER_ADMIN_MESSAGES.noCompanies}
      onRowClick={onOpen}
      rowLabel={(company) => `Open the users of ${company.company_name}`}
      columns={[
        { key: 'id', header: 'ID', width: 70, render: (company) => company.id },
        { key: 'name', header: 'Company Name', cellProps: { fw: 600 }, render: (company) => company.company_name },
        {
          key: 'activation-key',
          header: 'Activation Key',
          render: (company) => <Code style={{ wordBreak: 'break-all' }}>{company.activation_key}</Code>,
        },
        {
          key: 'onboard',
          header: 'Onboard Users',
          width: 130,
          align: 'center',
          render: (company) => (
            <Tooltip label="Send onboarding email" withArrow>
              <ActionIcon
                variant="light"
                aria-label={`Send onboarding email for ${company.company_name}`}
                onClick={only(() => onOnboard(company))}
              >
                <IconMailForward size={18} />
              </ActionIcon>
            </Tooltip>
          ),
        },
        {
          key: 'edit',
          header: 'Edit',
          width: 70,
          align: 'center',
          render: (company) => (
            <Tooltip label="Edit company" withArrow>
              <ActionIcon variant="subtle" aria-label={`Edit ${company.company_name}`} onClick={only(() => onEdit(company))}>
                <IconPencil size={18} />
              </ActionIcon>
            </Tooltip>
          ),
        },
      ]}
    />
  )
}
