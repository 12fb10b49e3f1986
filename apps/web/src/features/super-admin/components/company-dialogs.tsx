import { Modal } from '@mantine/core'
import { useState } from 'react'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import { useAsync } from '../../../hooks/use-async'
import { apiMessageOf } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { createCompany, getCompany, updateCompany, type Company } from '../api/companies'
import { draftFromCompany, emptyCompanyDraft, validateCreateCompany, validateEditCompany, type Checked } from '../utils/company-form'
import { SUPER_ADMIN_MESSAGES } from '../utils/messages'
import { CompanyForm } from './company-form'

/**
 * The save flow of both dialogs: a checked draft is sent, a response without a company counts as a failure;
 * success notifies, refreshes and closes; a failure notifies with the documented title and the server's
 * reason or 'Failed to process the request.'
 */
function useCompanySave<T>(
  request: (value: T) => Promise<Company | undefined>,
  messages: { success: string; failureTitle: string },
  { onClose, onSaved }: { onClose: () => void; onSaved: () => void },
) {
  const [error, setError] = useState<string | null>(null)
  const [submitting, setSubmitting] = useState(false)

  async function save(checked: Checked<T>) {
    if (!checked.ok) {
      setError(checked.message)
      return
    }
    setError(null)
    setSubmitting(true)
    try {
      const company = await request(checked.value)
      if (typeof company?.id !== 'number') throw new Error('no company in the response')
      notify({ severity: 'success', message: messages.success })
      onSaved()
      onClose()
    } catch (caught) {
      notify({ severity: 'error', title: messages.failureTitle, message: apiMessageOf(caught, SUPER_ADMIN_MESSAGES.requestFailed) })
    } finally {
      setSubmitting(false)
    }
  }

  return { error, submitting, save }
}

function CreateCompanyBody({ onClose, onSaved }: { onClose: () => void; onSaved: () => void }) {
  const { error, submitting, save } = useCompanySave(
    createCompany,
    { success: SUPER_ADMIN_MESSAGES.activated, failureTitle: SUPER_ADMIN_MESSAGES.createFailed },
    { onClose, onSaved },
  )
  const [initial] = useState(emptyCompanyDraft)

  return (
    <CompanyForm
      mode="create"
      initial={initial}
      error={error}
      submitting={submitting}
      onSubmit={(draft) => void save(validateCreateCompany(draft))}
      onCancel={onClose}
    />
  )
}

/** 'Create New Company' (spec 1 §2, §5): success 'Company activated successfully'. */
export function CreateCompanyDialog({ opened, onClose, onSaved }: { opened: boolean; onClose: () => void; onSaved: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Create New Company" size="lg" centered>
      {opened && <CreateCompanyBody onClose={onClose} onSaved={onSaved} />}
    </Modal>
  )
}

function EditCompanyBody({ companyId, onClose, onSaved }: { companyId: number; onClose: () => void; onSaved: () => void }) {
  const company = useAsync(() => getCompany(companyId), [companyId])
  const { error, submitting, save } = useCompanySave(
    updateCompany,
    { success: SUPER_ADMIN_MESSAGES.updated, failureTitle: SUPER_ADMIN_MESSAGES.updateFailed },
    { onClose, onSaved },
  )

  if (company.status === 'loading') return <PageLoader />
  if (company.status === 'error') {
    return (
      <EmptyState
        type="error"
        variant="inline"
        title={SUPER_ADMIN_MESSAGES.companyFailed}
        message={apiMessageOf(company.error, '')}
        action={{ label: 'Try Again', onClick: company.reload }}
      />
    )
  }
  const record = company.data
  return (
    <CompanyForm
      mode="edit"
      initial={draftFromCompany(record)}
      activationKey={record.activation_key}
      error={error}
      submitting={submitting}
      onSubmit={(draft, reset) => void save(validateEditCompany(draft, record, reset))}
      onCancel={onClose}
    />
  )
}

/** Edit company (spec 1 §4, §5): loads the record, offers 'Reset Activation Key'; success 'Company updated successfully'. */
export function EditCompanyDialog({ company, onClose, onSaved }: { company: Pick<Company, 'id' | 'company_name'> | null; onClose: () => void; onSaved: () => void }) {
  return (
    <Modal opened={company !== null} onClose={onClose} title={company ? `Edit ${company.company_name}` : 'Edit Company'} size="lg" centered>
      {company && <EditCompanyBody key={company.id} companyId={company.id} onClose={onClose} onSaved={onSaved} />}
    </Modal>
  )
}
