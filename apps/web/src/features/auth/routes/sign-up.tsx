import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core'
import { Link, useSearchParams } from 'react-router'
import { FormErrorAlert } from '../../../components/feedback/form-error-alert'
import { apiMessageOf } from '../../../lib/api-client'
import { requestLoginToken } from '../api/login'
import { requestSignUp } from '../api/password'
import { AuthLayout } from '../components/auth-layout'
import { PasswordStrengthMeter } from '../components/password-strength-meter'
import { useAuthForm } from '../hooks/use-auth-form'
import { useCompleteLogin } from '../hooks/use-complete-login'
import { ACCOUNT_MESSAGES } from '../utils/messages'
import { signUpErrors, signUpFormSchema } from '../utils/validation'

/** Sign Up (spec 1 §2, §4, §5): create the user, log in, then go to /apps. */
export function SignUpRoute() {
  const [searchParams] = useSearchParams()
  const completeLogin = useCompleteLogin()
  // the invitation link's token: proves the invited mailbox so that the invited role applies (decision 0012)
  const invitationToken = searchParams.get('invitation')?.trim() || null
  const { values, field, onSubmit, submitting, setSubmitting, formError, setFormError } = useAuthForm(
    { email: '', password: '', activation_key: searchParams.get('activation_key') ?? '' },
    signUpFormSchema,
    { mapErrors: signUpErrors },
  )

  const signUp = onSubmit(async (values) => {
    const email = values.email.trim()
    try {
      const created = await requestSignUp({
        email,
        password: values.password,
        activation_key: values.activation_key.trim(),
        ...(invitationToken ? { invitation_token: invitationToken } : {}),
      })
      if (!created?.message) {
        setFormError(ACCOUNT_MESSAGES.signUpNotSuccessful)
        setSubmitting(false)
        return
      }
    } catch (error) {
      setFormError(apiMessageOf(error, ACCOUNT_MESSAGES.signUpFailed))
      setSubmitting(false)
      return
    }
    try {
      const token = await requestLoginToken({ email, password: values.password })
      // the new account's home: /apps, or /price-check for a member (spec 1 §2, §4)
      completeLogin(token, { ignoreOrigin: true })
    } catch {
      setFormError(ACCOUNT_MESSAGES.signUpNotSuccessful)
      setSubmitting(false)
    }
  })

  return (
    <AuthLayout
      title="Sign Up"
      subtitle="Create your account with the activation key your organization received."
      footer={
        <Text ta="center" size="sm">
          Already have an account?{' '}
          <Anchor component={Link} to="/sign-in" fw={600}>
            Sign In
          </Anchor>
        </Text>
      }
    >
      <form onSubmit={signUp} noValidate>
        <Stack gap="md">
          {formError && <FormErrorAlert>{formError}</FormErrorAlert>}
          <TextInput label="Email" type="email" autoComplete="email" required {...field('email')} />
          <PasswordInput
            label="Password"
            placeholder={ACCOUNT_MESSAGES.passwordPlaceholder}
            autoComplete="new-password"
            required
            {...field('password')}
          />
          <PasswordStrengthMeter password={values.password} />
          <TextInput label="Activation key" autoComplete="off" required {...field('activation_key')} />
          <Button type="submit" fullWidth size="md" loading={submitting}>
            Create Account
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  )
}
