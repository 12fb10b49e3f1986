import { Anchor, Text } from '@mantine/core'
import { Link } from 'react-router'
import { AuthLayout } from '../components/auth-layout'
import { SignInForm } from '../components/sign-in-form'

export function SignInRoute() {
  return (
    <AuthLayout
      title="Sign In"
      subtitle="Welcome back. Sign in to continue to your apps."
      footer={
        <Text ta="center" size="sm">
          Don't have an account?{' '}
          <Anchor component={Link} to="/sign-up" fw={600}>
            Create an Account
          </Anchor>
        </Text>
      }
    >
      <SignInForm />
    </AuthLayout>
  )
}
