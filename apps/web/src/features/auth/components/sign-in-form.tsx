import { Anchor, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core'
import { Link } from 'react-router'
import { FormErrorAlert } from '../../../components/feedback/form-error-alert'
import { apiMessageOf } from '../../../lib/api-client'
import { NO_TOKEN_MESSAGE, requestLoginToken } from '../api/login'
import { useAuthForm } from '../hooks/use-auth-form'
import { useCompleteLogin } from '../hooks/use-complete-login'
import { canSubmitSignIn, signInFormSchema } from '../utils/validation'

export const SIGN_IN_FAILED = 'Authentication failed'

export function SignInForm() {
  const completeLogin = useCompleteLogin()
  const { values, field, onSubmit, submitting, setSubmitting, formError, setFormError } = useAuthForm(
    { email: '', password: '' },
    signInFormSchema,
  )

  const signIn = onSubmit(async (values) => {
    try {
      const token = await requestLoginToken({ email: values.email.trim(), password: values.password })
      completeLogin(token)
    } catch (error) {
      const message = error instanceof Error && error.message === NO_TOKEN_MESSAGE ? NO_TOKEN_MESSAGE : apiMessageOf(error, SIGN_IN_FAILED)
      setFormError(message)
      setSubmitting(false)
    }
  })

  return (
    <form onSubmit={signIn} noValidate>
      <Stack gap="md">
        {formError && <FormErrorAlert>{formError}</FormErrorAlert>}
        <TextInput label="Email" placeholder="you@company.com" type="email" autoComplete="email" required {...field('email')} />
        <PasswordInput label="Password" placeholder="Your password" autoComplete="current-password" required {...field('password')} />
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
