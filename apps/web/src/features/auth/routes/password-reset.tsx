import { homePathFor } from '@citrus/contracts'
import { PasswordInput } from '@mantine/core'
import type { FormEvent } from 'react'
import { Navigate, useNavigate, useSearchParams } from 'react-router'
import { apiMessageOf } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { useSession } from '../../../lib/session'
import { requestPasswordReset } from '../api/password'
import { AuthLayout } from '../components/auth-layout'
import { PasswordStrengthMeter } from '../components/password-strength-meter'
import { ResetForm } from '../components/reset-form'
import { useAuthForm } from '../hooks/use-auth-form'
import { ACCOUNT_MESSAGES } from '../utils/messages'
import { validateNewPassword, type FieldErrors } from '../utils/validation'

const newPasswordErrors = ({ password }: { password: string }): FieldErrors<'password'> => {
  const error = validateNewPassword(password)
  return error ? { password: error } : {}
}

/** Set a new password (/password-reset?token=…), spec 1 §2 and §4. */
export function PasswordResetRoute() {
  const [searchParams] = useSearchParams()
  const session = useSession()
  const navigate = useNavigate()
  const token = searchParams.get('token')
  const { values, field, begin, submitting, setSubmitting, formError, setFormError } = useAuthForm({ password: '' }, newPasswordErrors)

  if (session.authenticated) return <Navigate to={homePathFor(session.role)} replace />
  if (!token) return <Navigate to="/password-reset-email" replace state={{ error: ACCOUNT_MESSAGES.noToken }} />

  // after the guards above, so `token` is a string here
  const onSubmit = async (event: FormEvent) => {
    if (!begin(event)) return
    try {
      const response = await requestPasswordReset({ new_password: values.password, temp_jwt_token: token })
      if (response?.message_id === undefined || response.message_id === null) {
        setFormError(ACCOUNT_MESSAGES.resetNotSuccessful)
        setSubmitting(false)
        return
      }
      notify({ severity: 'success', message: 'Your password has been reset. Please sign in.' })
      navigate('/sign-in', { replace: true })
    } catch (caught) {
      setFormError(apiMessageOf(caught, ACCOUNT_MESSAGES.resetError))
      setSubmitting(false)
    }
  }

  return (
    <AuthLayout title="Set New Password" subtitle="Choose a strong password for your account.">
      <ResetForm onSubmit={onSubmit} formError={formError} submitting={submitting} submitLabel="Reset Password">
        <PasswordInput
          label="New password"
          placeholder={ACCOUNT_MESSAGES.passwordPlaceholder}
          autoComplete="new-password"
          required
          {...field('password')}
        />
        <PasswordStrengthMeter password={values.password} />
      </ResetForm>
    </AuthLayout>
  )
}
