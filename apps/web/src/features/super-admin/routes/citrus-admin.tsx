import { ONBOARDING_ROLES } from '@citrus/contracts'
import { Button, Container, Paper, Stack } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { QueryStatus } from '../../../components/feedback/query-status'
import { PageHeader } from '../../../components/layouts/page-header'
import { OnboardingEmailDialog } from '../../../components/onboarding-email/onboarding-email-dialog'
import { isInvalidResponse } from '../../../lib/api-client'
import { useCompanies, type Company } from '../api/companies'
import { CompaniesTable } from '../components/companies-table'
import { CreateCompanyDialog, EditCompanyDialog } from '../components/company-dialogs'
import { SUPER_ADMIN_MESSAGES } from '../utils/messages'

/** /citrus-admin (citrus): every company, create, edit and onboarding e-mails (spec 1 §2). */
export function CitrusAdminRoute() {
  const navigate = useNavigate()
  const companies = useCompanies()
  const [creating, setCreating] = useState(false)
  const [editing, setEditing] = useState<Company | null>(null)
  const [onboarding, setOnboarding] = useState<Company | null>(null)

  return (
    <Container size="xl" py="lg">
      <Stack gap="lg">
        <PageHeader
          title="Super Admin Dashboard"
          description="Companies on the platform: activation keys, policies and their users."
          actions={
            <Button leftSection={<IconPlus size={18} />} onClick={() => setCreating(true)}>
              Create New Company
            </Button>
          }
        />
        <Paper withBorder radius="lg" p="md">
          <QueryStatus
            query={companies}
            errorTitle={isInvalidResponse(companies.error) ? SUPER_ADMIN_MESSAGES.companiesMissing : SUPER_ADMIN_MESSAGES.companiesFailed}
          />
          {companies.isSuccess && (
            <CompaniesTable
              companies={companies.data}
              onOpen={(company) => navigate(`/company/${company.id}/users`)}
              onOnboard={setOnboarding}
              onEdit={setEditing}
            />
          )}
        </Paper>
      </Stack>
      <CreateCompanyDialog opened={creating} onClose={() => setCreating(false)} />
      <EditCompanyDialog company={editing} onClose={() => setEditing(null)} />
      <OnboardingEmailDialog
        opened={onboarding !== null}
        onClose={() => setOnboarding(null)}
        roles={ONBOARDING_ROLES}
        activationKey={onboarding?.activation_key}
        companyName={onboarding?.company_name}
      />
    </Container>
  )
}
