import { Anchor, Button, Stack } from '@mantine/core'
import type { FormEvent, ReactNode } from 'react'
import { Link } from 'react-router'
import { FormErrorAlert } from '../../../components/feedback/form-error-alert'
import { ACCOUNT_MESSAGES } from '../utils/messages'

export interface ResetFormProps {
  onSubmit: (event: FormEvent<HTMLFormElement>) => void
  /** shown above the fields under the 'reset failed' title */
  formError: string | null
  submitting: boolean
  submitLabel: string
  /** the form's fields */
  children: ReactNode
}

/** The password reset forms (spec 1 §4): error alert, fields, submit button and the way back to sign in. */
export function ResetForm({ onSubmit, formError, submitting, submitLabel, children }: ResetFormProps) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {formError && <FormErrorAlert title={ACCOUNT_MESSAGES.resetFailedTitle}>{formError}</FormErrorAlert>}
        {children}
        <Button type="submit" fullWidth size="md" loading={submitting}>
          {submitLabel}
        </Button>
        <Anchor component={Link} to="/sign-in" size="sm" ta="center">
          Back to Sign In
        </Anchor>
      </Stack>
    </form>
  )
}
