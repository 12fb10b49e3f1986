import { Anchor, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core'
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { FormErrorAlert } from '../../../components/feedback/form-error-alert'
import { apiMessageOf } from '../../../lib/api-client'
import { NO_TOKEN_MESSAGE, requestLoginToken } from '../api/login'
import { useCompleteLogin } from '../hooks/use-complete-login'
import { canSubmitSignIn, validateSignIn, type FieldErrors } from '../utils/validation'

export const SIGN_IN_FAILED = 'Authentication failed'

export function SignInForm() {
  const completeLogin = useCompleteLogin()
  const [values, setValues] = useState({ email: '', password: '' })
  const [touched, setTouched] = useState<{ email?: boolean; password?: boolean }>({})
  const [submitted, setSubmitted] = useState(false)
  const [submitting, setSubmitting] = useState(false)
  const [formError, setFormError] = useState<string | null>(null)

  const errors: FieldErrors<'email' | 'password'> = validateSignIn(values)
  const show = (field: 'email' | 'password') => (submitted || touched[field] ? errors[field] : undefined)

  async function onSubmit(event: FormEvent) {
    event.preventDefault()
    setSubmitted(true)
    setFormError(null)
    if (Object.keys(errors).length > 0) return
    setSubmitting(true)
    try {
      const token = await requestLoginToken({ email: values.email.trim(), password: values.password })
      completeLogin(token)
    } catch (error) {
      const message = error instanceof Error && error.message === NO_TOKEN_MESSAGE ? NO_TOKEN_MESSAGE : apiMessageOf(error, SIGN_IN_FAILED)
      setFormError(message)
      setSubmitting(false)
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        {formError && <FormErrorAlert>{formError}</FormErrorAlert>}
        <TextInput
          label="Email"
          placeholder="you@company.com"
          type="email"
          autoComplete="email"
          required
          value={values.email}
          onChange={(event) => {
            const email = event.currentTarget.value
            setValues((v) => ({ ...v, email }))
          }}
          onBlur={() => setTouched((t) => ({ ...t, email: true }))}
          error={show('email')}
        />
        <PasswordInput
          label="Password"
          placeholder="Your password"
          autoComplete="current-password"
          required
          value={values.password}
          onChange={(event) => {
            const password = event.currentTarget.value
            setValues((v) => ({ ...v, password }))
          }}
          onBlur={() => setTouched((t) => ({ ...t, password: true }))}
          error={show('password')}
        />
        <Group justify="flex-end">
          <Anchor component={Link} to="/password-reset-email" size="sm">
            Forget password?
          </Anchor>
        </Group>
        <Button type="submit" fullWidth size="md" disabled={!canSubmitSignIn(values)} loading={submitting}>
          Sign In
        </Button>
      </Stack>
    </form>
  )
}
