import { homePathFor } from '@citrus/contracts'
import { PasswordInput } from '@mantine/core'
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
import { newPasswordFormSchema } from '../utils/validation'

/** Set a new password (/password-reset?token=…), spec 1 §2 and §4. */
export function PasswordResetRoute() {
  const [searchParams] = useSearchParams()
  const session = useSession()
  const navigate = useNavigate()
  const token = searchParams.get('token')
  const { values, field, onSubmit, submitting, setSubmitting, formError, setFormError } = useAuthForm(
    { password: '' },
    newPasswordFormSchema,
  )

  if (session.authenticated) return <Navigate to={homePathFor(session.role)} replace />
  if (!token) return <Navigate to="/password-reset-email" replace state={{ error: ACCOUNT_MESSAGES.noToken }} />

  // after the guards above, so `token` is a string here
  const reset = onSubmit(async (values) => {
    try {
      const response = await requestPasswordReset({ new_password: values.password, temp_jwt_token: token })
      if (response === null) {
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
  })

  return (
    <AuthLayout title="Set New Password" subtitle="Choose a strong password for your account.">
      <ResetForm onSubmit={reset} formError={formError} submitting={submitting} submitLabel="Reset Password">
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
