import { PasswordInput } from '@mantine/core'
import { useState, type FormEvent } from 'react'
import { Navigate, useNavigate, useSearchParams } from 'react-router'
import { apiMessageOf } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { useSession } from '../../../lib/session'
import { requestPasswordReset } from '../api/password'
import { AuthLayout } from '../components/auth-layout'
import { PasswordStrengthMeter } from '../components/password-strength-meter'
import { ResetForm } from '../components/reset-form'
import { ACCOUNT_MESSAGES } from '../utils/messages'
import { validateNewPassword } from '../utils/validation'

/** Set a new password (/password-reset?token=…), spec 1 §2 and §4. */
export function PasswordResetRoute() {
  const [searchParams] = useSearchParams()
  const session = useSession()
  const navigate = useNavigate()
  const token = searchParams.get('token')
  const [password, setPassword] = useState('')
  const [touched, setTouched] = useState(false)
  const [submitted, setSubmitted] = useState(false)
  const [submitting, setSubmitting] = useState(false)
  const [formError, setFormError] = useState<string | null>(null)

  if (session.authenticated) return <Navigate to="/apps" replace />
  if (!token) return <Navigate to="/password-reset-email" replace state={{ error: ACCOUNT_MESSAGES.noToken }} />

  const error = validateNewPassword(password)

  async function onSubmit(event: FormEvent) {
    event.preventDefault()
    setSubmitted(true)
    setFormError(null)
    if (error || !token) return
    setSubmitting(true)
    try {
      const response = await requestPasswordReset({ new_password: password, temp_jwt_token: token })
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
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          onBlur={() => setTouched(true)}
          error={submitted || touched ? error : undefined}
        />
        <PasswordStrengthMeter password={password} />
      </ResetForm>
    </AuthLayout>
  )
}
