import { Modal } from '@mantine/core'
import { useState } from 'react'
import { EmptyState } from '../../../components/feedback/empty-state'
import { PageLoader } from '../../../components/feedback/page-loader'
import { apiMessageOf } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { useCompany, useCreateCompany, useUpdateCompany, type Company } from '../api/companies'
import { draftFromCompany, emptyCompanyDraft, validateCreateCompany, validateEditCompany } from '../utils/company-form'
import { SUPER_ADMIN_MESSAGES } from '../utils/messages'
import { CompanyForm } from './company-form'

/**
 * The save flow of both dialogs: the request the form checked is sent through the mutation (which refreshes the
 * list); success notifies and closes; a failure, or an answer without the company, notifies with the
 * documented title and the server's reason or 'Failed to process the request.'
 */
function useCompanySave<T>(
  mutation: {
    mutate: (input: { body: T }, callbacks: { onSuccess: () => void; onError: (error: Error) => void }) => void
    isPending: boolean
  },
  messages: { success: string; failureTitle: string },
  onClose: () => void,
) {
  function save(request: T) {
    mutation.mutate(
      { body: request },
      {
        onSuccess: () => {
          notify({ severity: 'success', message: messages.success })
          onClose()
        },
        onError: (caught) =>
          notify({ severity: 'error', title: messages.failureTitle, message: apiMessageOf(caught, SUPER_ADMIN_MESSAGES.requestFailed) }),
      },
    )
  }

  return { submitting: mutation.isPending, save }
}

function CreateCompanyBody({ onClose }: { onClose: () => void }) {
  const { submitting, save } = useCompanySave(
    useCreateCompany(),
    { success: SUPER_ADMIN_MESSAGES.activated, failureTitle: SUPER_ADMIN_MESSAGES.createFailed },
    onClose,
  )
  const [initial] = useState(emptyCompanyDraft)

  return (
    <CompanyForm mode="create" initial={initial} submitting={submitting} check={validateCreateCompany} onSubmit={save} onCancel={onClose} />
  )
}

/** 'Create New Company' (spec 1 §2, §5): success 'Company activated successfully'. */
export function CreateCompanyDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Create New Company" size="lg" centered>
      {opened && <CreateCompanyBody onClose={onClose} />}
    </Modal>
  )
}

function EditCompanyBody({ companyId, onClose }: { companyId: number; onClose: () => void }) {
  const company = useCompany(companyId)
  const { submitting, save } = useCompanySave(
    useUpdateCompany(),
    { success: SUPER_ADMIN_MESSAGES.updated, failureTitle: SUPER_ADMIN_MESSAGES.updateFailed },
    onClose,
  )

  if (company.isPending || (company.isError && company.isFetching)) return <PageLoader />
  if (company.isError) {
    return (
      <EmptyState
        type="error"
        variant="inline"
        title={SUPER_ADMIN_MESSAGES.companyFailed}
        message={apiMessageOf(company.error, '')}
        action={{ label: 'Try Again', onClick: () => void company.refetch() }}
      />
    )
  }
  const record = company.data
  return (
    <CompanyForm
      mode="edit"
      initial={draftFromCompany(record)}
      activationKey={record.activation_key}
      submitting={submitting}
      check={(draft, reset) => validateEditCompany(draft, record, reset)}
      onSubmit={save}
      onCancel={onClose}
    />
  )
}

/** Edit company (spec 1 §4, §5): loads the record, offers 'Reset Activation Key'; success 'Company updated successfully'. */
export function EditCompanyDialog({ company, onClose }: { company: Pick<Company, 'id' | 'company_name'> | null; onClose: () => void }) {
  return (
    <Modal opened={company !== null} onClose={onClose} title={company ? `Edit ${company.company_name}` : 'Edit Company'} size="lg" centered>
      {company && <EditCompanyBody key={company.id} companyId={company.id} onClose={onClose} />}
    </Modal>
  )
}
