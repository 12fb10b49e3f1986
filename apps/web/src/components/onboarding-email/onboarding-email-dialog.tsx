import { Button, Group, Modal, Radio, Stack, Text, TextInput } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useState } from 'react'
import { apiDetailOf } from '../../lib/api-client'
import { notify } from '../../lib/notify'
import { FormErrorDetailAlert, type FormError } from '../feedback/form-error-alert'
import {
  ONBOARDING_CLIENT_MESSAGES,
  ONBOARDING_ROLE_LABELS,
  useSendOnboardingEmail,
  validateOnboarding,
  type OnboardingDraft,
  type OnboardingRole,
} from './onboarding-email'

export interface OnboardingEmailDialogProps {
  opened: boolean
  onClose: () => void
  /** the roles offered: User and Admin on the team screen, also Citrus for super admins (spec 1 §6) */
  roles: readonly OnboardingRole[]
  /** prefilled activation key (the company's) */
  activationKey: string | null | undefined
  /** shown under the title, e.g. the company's name */
  companyName?: string | null
}

/** The key of the form's one message. */
const FORM_ERROR = 'form'

function OnboardingForm({ roles, activationKey, onClose }: Omit<OnboardingEmailDialogProps, 'opened' | 'companyName'>) {
  // one message for the whole form, the first the draft breaks in the documented order (spec 1 §5): the contract's
  // onboarding request schema, shown until the next submit
  const form = useForm<OnboardingDraft>({
    mode: 'controlled',
    initialValues: { email: '', company_activation_key: activationKey ?? '', role: roles[0] ?? null },
    validate: (draft) => {
      const checked = validateOnboarding(draft)
      return checked.ok ? {} : { [FORM_ERROR]: checked.message }
    },
  })
  // a failed send (the server's reason as detail)
  const [sendError, setSendError] = useState<FormError | null>(null)
  const invalid = form.errors[FORM_ERROR]
  const error: FormError | null = typeof invalid === 'string' ? { message: invalid } : sendError
  const send = useSendOnboardingEmail()
  const sending = send.isPending

  const onSubmit = form.onSubmit(
    (draft) => {
      const checked = validateOnboarding(draft)
      if (!checked.ok) return
      setSendError(null)
      send.mutate(
        { body: checked.request },
        {
          onSuccess: () => {
            notify({
              severity: 'success',
              title: ONBOARDING_CLIENT_MESSAGES.sent(checked.request.email),
              message: ONBOARDING_CLIENT_MESSAGES.sentBody,
            })
            onClose()
          },
          // an answer without message_id is a failure too (spec 1 §5): it arrives as an INVALID_RESPONSE error
          onError: (caught) => setSendError({ message: ONBOARDING_CLIENT_MESSAGES.failed, detail: apiDetailOf(caught) }),
        },
      )
    },
    () => setSendError(null),
  )

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {error && <FormErrorDetailAlert error={error} />}
        <TextInput
          label="Email"
          type="email"
          placeholder="name@company.com"
          required
          autoComplete="off"
          {...form.getInputProps('email')}
          data-autofocus
        />
        <TextInput
          label="Activation Key"
          required
          {...form.getInputProps('company_activation_key')}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        <Radio.Group
          label="Role"
          required
          value={form.values.role ?? ''}
          onChange={(value) => form.setFieldValue('role', value as OnboardingRole)}
        >
          <Group mt="xs" gap="lg">
            {roles.map((option) => (
              <Radio key={option} value={option} label={ONBOARDING_ROLE_LABELS[option]} />
            ))}
          </Group>
        </Radio.Group>
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose} disabled={sending}>
            Cancel
          </Button>
          <Button type="submit" loading={sending}>
            Send Email
          </Button>
        </Group>
      </Stack>
    </form>
  )
}

/** 'Send Onboarding Email' dialog (spec 1 §2, §5, §6) shared by Team Management and the Super Admin Dashboard. */
export function OnboardingEmailDialog({ opened, onClose, roles, activationKey, companyName }: OnboardingEmailDialogProps) {
  return (
    <Modal opened={opened} onClose={onClose} title="Send Onboarding Email" centered size="md">
      {companyName && (
        <Text size="sm" c="dimmed" mb="sm">
          Invite a new user to {companyName}.
        </Text>
      )}
      {/* mounted per opening, so each opening starts from the current prefilled key */}
      {opened && <OnboardingForm roles={roles} activationKey={activationKey} onClose={onClose} />}
    </Modal>
  )
}
