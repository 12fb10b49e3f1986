import { ONBOARDING_ROLES } from '@citrus/contracts'
import { Button, Container, Paper, Stack } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import { PageHeader } from '../../../components/layouts/page-header'
import { OnboardingEmailDialog } from '../../../components/onboarding-email/onboarding-email-dialog'
import { useAsync } from '../../../hooks/use-async'
import { MissingListError, getCompanies, type Company } from '../api/companies'
import { CompaniesTable } from '../components/companies-table'
import { CreateCompanyDialog, EditCompanyDialog } from '../components/company-dialogs'
import { SUPER_ADMIN_MESSAGES } from '../utils/messages'

/** /citrus-admin (citrus): every company, create, edit and onboarding e-mails (spec 1 §2). */
export function CitrusAdminRoute() {
  const navigate = useNavigate()
  const companies = useAsync(getCompanies, [])
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
          {companies.status === 'loading' && <PageLoader />}
          {companies.status === 'error' && (
            <EmptyState
              type="error"
              variant="inline"
              title={companies.error instanceof MissingListError ? SUPER_ADMIN_MESSAGES.companiesMissing : SUPER_ADMIN_MESSAGES.companiesFailed}
              message=""
              action={{ label: 'Try Again', onClick: companies.reload }}
            />
          )}
          {companies.status === 'success' && (
            <CompaniesTable
              companies={companies.data}
              onOpen={(company) => navigate(`/company/${company.id}/users`)}
              onOnboard={setOnboarding}
              onEdit={setEditing}
            />
          )}
        </Paper>
      </Stack>
      <CreateCompanyDialog opened={creating} onClose={() => setCreating(false)} onSaved={companies.reload} />
      <EditCompanyDialog company={editing} onClose={() => setEditing(null)} onSaved={companies.reload} />
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
