import { confirmVerificationCodeRequestSchema, memberAccessFormSchema, normalizeUsPhone, type MemberAccessChecks } from '@citrus/contracts'
import { Alert, Button, Modal, PasswordInput, PinInput, Stack, Stepper, Text, TextInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useState } from 'react'
import { startGuestSession, type ShareableLinkValidation } from '../../../lib/guest-session'
import { parseLoginClaims } from '../../../lib/auth-token'
import { login } from '../../../lib/session'
import { useConfirmCode, useLogin, useMemberSignup, useSendCode, useVerifyUser } from '../api/care-api'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'

type Channel = 'email' | 'phone'
type Step = 'start' | 'login' | 'code' | 'account'

/** The access modal's values: what was typed in each field. */
interface AccessValues {
  email: string
  phone: string
  password: string
  confirmation: string
}
const NO_VALUES: AccessValues = { email: '', phone: '', password: '', confirmation: '' }

/** The code step's rule: the code of the contract's confirm request (6 digits). */
const resolveCode = schemaResolver(confirmVerificationCodeRequestSchema.pick({ code: true }), { sync: true })

/** The access forms' rules (spec 3 §5), by the contract's memberAccessFormSchema: a field's message, or null. */
function accessErrors(checks: MemberAccessChecks, values: Partial<AccessValues>) {
  return schemaResolver(memberAccessFormSchema(checks), { sync: true })({ ...NO_VALUES, ...values })
}
export function emailError(email: string): string | null {
  return (accessErrors({ email: true }, { email }).email as string | undefined) ?? null
}
export function phoneError(phone: string): string | null {
  return (accessErrors({ phone: true }, { phone }).phone as string | undefined) ?? null
}
export function confirmError(password: string, confirmation: string): string | null {
  return (accessErrors({ password: 'new' }, { password, confirmation }).confirmation as string | undefined) ?? null
}

/**
 * The access modal of /member-recommendations (spec 3 §2.4, §4.2): public (Welcome / Continue), private (Verify
 * Access, then a code, Create Account when required, Welcome back! sign-in when the user exists) and invite (Sign
 * Up, Email Verification, Phone Verification with Resend Code). Codes and accounts: docs/decisions/0023.
 */
export function AccessModal({
  token,
  link,
  onGranted,
}: {
  token: string
  link: ShareableLinkValidation
  onGranted: (replacementToken?: string) => void
}) {
  const needEmail = link.requires_email_verification
  const needPhone = link.requires_phone_verification
  const needAccount = link.requires_account_creation || link.url_type === 'invite'
  const [step, setStep] = useState<Step>('start')
  // the fields each step checks when it is submitted: Verify Access / Sign Up, Create Account, Sign In
  const checksOf = (values: AccessValues): MemberAccessChecks =>
    step === 'login'
      ? { email: true, password: 'sign-in' }
      : step === 'account'
        ? { password: 'new' }
        : {
            email: needEmail || link.url_type === 'invite',
            // an invite's sign-up takes a phone too (required when it is verified; an invite that names one needs it, spec 3 §6)
            phone: needPhone || (link.url_type === 'invite' && values.phone.trim() !== ''),
            password: link.url_type === 'invite' ? 'new' : undefined,
          }
  // the errors show when a step is submitted and stay until the next submit (no clearing on a change)
  const form = useForm<AccessValues>({
    mode: 'controlled',
    initialValues: NO_VALUES,
    validate: (values) => schemaResolver(memberAccessFormSchema(checksOf(values)), { sync: true })(values),
    clearInputErrorOnChange: false,
  })
  const { email, phone, password } = form.values
  const [formError, setFormError] = useState<string | null>(null)
  const [pending, setPending] = useState<Channel[]>([])
  const [verification, setVerification] = useState<{ id: string; channel: Channel } | null>(null)
  // the code step: the code typed, checked by the confirm request's rule: Verify is enabled once the rule accepts it;
  // a code submitted before (Enter) shows the rule's message and sends nothing
  const codeForm = useForm<{ code: string }>({ mode: 'controlled', initialValues: { code: '' }, validate: resolveCode })
  const [currentToken, setCurrentToken] = useState(token)
  const verifyUser = useVerifyUser()
  const signIn = useLogin()
  const sendCode = useSendCode()
  const confirmCode = useConfirmCode()
  const signup = useMemberSignup()

  async function send(channel: Channel, tokenToUse = currentToken) {
    setFormError(null)
    try {
      const sent = await sendCode.mutateAsync({
        query: { token: tokenToUse },
        body: { channel, email: channel === 'email' ? email.trim() : null, phone_number: channel === 'phone' ? phone : null },
      })
      setVerification({ id: sent.verification_id, channel })
      codeForm.reset()
      setStep('code')
    } catch (error) {
      setFormError(error instanceof Error ? error.message : CARE_MESSAGES_UI.resendFailed)
    }
  }

  async function startVerification() {
    if (form.validate().hasErrors) return
    if (!email.trim() && !phone.trim()) return setFormError(CARE_MESSAGES_UI.needContact)
    let exists = false
    if (link.url_type !== 'invite') {
      try {
        const answer = await verifyUser.mutateAsync({
          body: { email: email.trim() || null, phone_number: phone.trim() ? normalizePhone(phone) : null },
        })
        exists = answer.exists
      } catch {
        // a failure of the user check does not block: proceed as if the user did not exist (spec 3 §4.2)
        exists = false
      }
    }
    if (exists) return setStep('login')
    const channels: Channel[] = [
      ...(needEmail || (link.url_type === 'invite' && email) ? ['email' as const] : []),
      ...(needPhone ? ['phone' as const] : []),
    ]
    if (channels.length === 0) return needAccount ? setStep('account') : onGranted()
    setPending(channels.slice(1))
    await send(channels[0] as Channel)
  }

  async function submitCode({ code }: { code: string }) {
    if (!verification) return
    try {
      const result = await confirmCode.mutateAsync({ query: { token: currentToken }, body: { verification_id: verification.id, code } })
      setCurrentToken(result.token)
      const [nextChannel, ...rest] = pending
      if (nextChannel) {
        setPending(rest)
        await send(nextChannel, result.token)
        return
      }
      if (needAccount) {
        if (link.url_type === 'invite') await createAccount(result.token)
        else setStep('account')
        return
      }
      await startGuestSession(result.token)
      onGranted(result.token)
    } catch (error) {
      setFormError(error instanceof Error ? error.message : CARE_MESSAGES_UI.verificationFailed)
    }
  }

  async function createAccount(tokenToUse = currentToken) {
    if (form.validate().hasErrors) return
    try {
      const created = await signup.mutateAsync({
        query: { token: tokenToUse },
        body: {
          email: email.trim(),
          password,
          first_name: null,
          last_name: null,
          phone_number: phone.trim() ? normalizePhone(phone) : null,
        },
      })
      if (!created.jwt_token) throw new Error(CARE_MESSAGES_UI.accountCreationFailed)
      login(created.jwt_token)
      onGranted()
    } catch (error) {
      setFormError(error instanceof Error && error.message ? error.message : CARE_MESSAGES_UI.accountCreationFailed)
    }
  }

  async function submitLogin() {
    const { hasErrors } = form.validate()
    // a missing e-mail or password keeps the form-level message too (spec 3 §8)
    setFormError(!email.trim() || !password ? CARE_MESSAGES_UI.credentialsRequired : null)
    if (hasErrors) return
    try {
      const answer = await signIn.mutateAsync({ body: { email: email.trim(), password } })
      if (!answer.token) throw new Error(CARE_MESSAGES_UI.loginFailed)
      const claims = parseLoginClaims(answer.token)
      if (!claims?.sub) throw new Error(CARE_MESSAGES_UI.noUserId)
      login(answer.token)
      onGranted()
    } catch (error) {
      setFormError(error instanceof Error && error.message ? error.message : CARE_MESSAGES_UI.loginFailed)
    }
  }

  if (link.url_type === 'public' && !needEmail && !needPhone && !needAccount) {
    return (
      <Modal opened onClose={() => onGranted()} title={CARE_TEXT.welcome} centered>
        <Stack>
          <Text>{CARE_TEXT.publicAccess}</Text>
          <Button onClick={() => onGranted()}>{CARE_TEXT.continue}</Button>
        </Stack>
      </Modal>
    )
  }

  const title =
    step === 'login'
      ? CARE_TEXT.welcomeBack
      : step === 'account'
        ? CARE_TEXT.createAccount
        : step === 'code'
          ? verification?.channel === 'phone'
            ? CARE_TEXT.phoneVerification
            : CARE_TEXT.emailVerification
          : link.url_type === 'invite'
            ? CARE_TEXT.signUp
            : CARE_TEXT.verifyAccess
  const busy = verifyUser.isPending || sendCode.isPending || confirmCode.isPending || signup.isPending || signIn.isPending

  // Not dismissible (spec 3 §4.2): the page behind it only waits for access, and the component has no way to leave
  // it, so there is no close button, and neither Escape nor the backdrop closes it (they would do nothing).
  return (
    <Modal
      opened
      onClose={() => undefined}
      withCloseButton={false}
      closeOnClickOutside={false}
      closeOnEscape={false}
      title={title}
      centered
    >
      <Stack gap="sm">
        {link.url_type === 'invite' && (
          <Stepper active={step === 'start' ? 0 : verification?.channel === 'phone' ? 2 : 1} size="xs">
            <Stepper.Step label={CARE_TEXT.signUp} />
            <Stepper.Step label={CARE_TEXT.emailVerification} />
            <Stepper.Step label={CARE_TEXT.phoneVerification} />
          </Stepper>
        )}
        {formError && <Alert color="red">{formError}</Alert>}
        {step === 'start' && (
          <>
            {(needEmail || link.url_type === 'invite') && <TextInput label="Email" {...form.getInputProps('email')} />}
            {(needPhone || link.url_type === 'invite') && (
              <TextInput
                label="Phone number"
                value={phone}
                onChange={(e) => form.setFieldValue('phone', formatTyping(e.currentTarget.value))}
                error={form.errors.phone}
              />
            )}
            {link.url_type === 'invite' && (
              <>
                <PasswordInput label="Password" {...form.getInputProps('password')} />
                <PasswordInput label="Confirm password" {...form.getInputProps('confirmation')} />
              </>
            )}
            <Button onClick={() => void startVerification()} loading={busy}>
              {link.url_type === 'invite' ? CARE_TEXT.signUp : CARE_TEXT.verifyAccess}
            </Button>
          </>
        )}
        {step === 'code' && verification && (
          <form onSubmit={codeForm.onSubmit(submitCode)} noValidate>
            <Stack gap="sm">
              <Text size="sm">{`We sent a 6-digit code to your ${verification.channel === 'email' ? 'e-mail' : 'phone'}.`}</Text>
              <PinInput
                length={6}
                type="number"
                oneTimeCode
                value={codeForm.values.code}
                onChange={(value) => codeForm.setFieldValue('code', value)}
                error={Boolean(codeForm.errors.code)}
                aria-label="Verification code"
              />
              {codeForm.errors.code && (
                <Text size="sm" c="red" role="alert">
                  {codeForm.errors.code}
                </Text>
              )}
              <Button type="submit" disabled={!codeForm.isValid()} loading={busy}>
                Verify
              </Button>
              <Button variant="subtle" onClick={() => void send(verification.channel)}>
                {CARE_TEXT.resendCode}
              </Button>
            </Stack>
          </form>
        )}
        {step === 'account' && (
          <>
            <PasswordInput label="Password" {...form.getInputProps('password')} />
            <PasswordInput label="Confirm password" {...form.getInputProps('confirmation')} />
            <Button onClick={() => void createAccount()} loading={busy}>
              {CARE_TEXT.createAccount}
            </Button>
          </>
        )}
        {step === 'login' && (
          <>
            <TextInput label="Email" {...form.getInputProps('email')} />
            <PasswordInput label="Password" {...form.getInputProps('password')} />
            <Button onClick={() => void submitLogin()} disabled={signIn.isPending}>
              {signIn.isPending ? CARE_TEXT.signingIn : CARE_TEXT.signIn}
            </Button>
          </>
        )}
      </Stack>
    </Modal>
  )
}

function normalizePhone(value: string): string {
  const result = normalizeUsPhone(value)
  return result.ok ? result.e164 : value
}
/** Shown as (xxx) xxx-xxxx while typing (spec 3 §5). */
function formatTyping(value: string): string {
  const d = value.replace(/\D/g, '').slice(0, 10)
  if (d.length <= 3) return d
  if (d.length <= 6) return `(${d.slice(0, 3)}) ${d.slice(3)}`
  return `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`
}
