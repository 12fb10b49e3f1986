import { Anchor, Stack, Text, TextInput, ThemeIcon, Title } from '@mantine/core'
import { IconMailCheck } from '@tabler/icons-react'
import { useState } from 'react'
import { Link, useLocation } from 'react-router'
import { apiMessageOf } from '../../../lib/api-client'
import { requestResetEmail } from '../api/password'
import { AuthLayout } from '../components/auth-layout'
import { ResetForm } from '../components/reset-form'
import { useAuthForm } from '../hooks/use-auth-form'
import { ACCOUNT_MESSAGES } from '../utils/messages'
import { resetEmailFormSchema } from '../utils/validation'

/** Request a reset e-mail (spec 1 §4): form, then the sent state. */
export function PasswordResetEmailRoute() {
  const location = useLocation()
  const redirectError = (location.state as { error?: string } | null)?.error ?? null
  const { field, onSubmit, submitting, setSubmitting, formError, setFormError } = useAuthForm({ email: '' }, resetEmailFormSchema, {
    initialError: redirectError,
  })
  const [sent, setSent] = useState(false)

  const requestEmail = onSubmit(async (values) => {
    try {
      const response = await requestResetEmail(values.email.trim())
      // success only when the response has message_id (spec 1 §5)
      if (response === null) setFormError(ACCOUNT_MESSAGES.resetNotSuccessful)
      else setSent(true)
    } catch (caught) {
      setFormError(apiMessageOf(caught, ACCOUNT_MESSAGES.resetError))
    } finally {
      setSubmitting(false)
    }
  })

  if (sent) {
    return (
      <AuthLayout title="Reset Password">
        <Stack align="center" ta="center" gap="sm">
          <ThemeIcon size={56} radius="xl" variant="light">
            <IconMailCheck size={30} />
          </ThemeIcon>
          <Title order={2} fz="xl">
            {ACCOUNT_MESSAGES.resetEmailSentTitle}
          </Title>
          <Text c="dimmed">{ACCOUNT_MESSAGES.resetEmailSentBody}</Text>
          <Anchor component={Link} to="/sign-in" fw={600}>
            Back to Sign In
          </Anchor>
        </Stack>
      </AuthLayout>
    )
  }

  return (
    <AuthLayout title="Reset Password" subtitle="Enter your e-mail and we will send you a link to set a new password.">
      <ResetForm onSubmit={requestEmail} formError={formError} submitting={submitting} submitLabel="Send Reset Link">
        <TextInput label="Email" type="email" autoComplete="email" required {...field('email')} />
      </ResetForm>
    </AuthLayout>
  )
}
