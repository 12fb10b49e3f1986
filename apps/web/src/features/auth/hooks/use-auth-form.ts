import { schemaResolver, useForm, type FormErrors } from '@mantine/form'
import { useState } from 'react'

type Schema = Parameters<typeof schemaResolver>[0]

/**
 * An account form (spec 1 §4, §5) on @mantine/form, validated by a contract schema: a field's error
 * shows once the field was left or the form submitted, and then follows every keystroke; `mapErrors`
 * words an error as the screen documents it. The submit handler runs only for valid values, with the
 * form error cleared and `submitting` set; it clears `submitting` itself when it stays on the page.
 */
export function useAuthForm<V extends Record<string, string>>(
  initialValues: V,
  schema: Schema,
  options: { initialError?: string | null; mapErrors?: (errors: FormErrors) => FormErrors } = {},
) {
  const resolve = schemaResolver(schema, { sync: true })
  const form = useForm<V>({
    mode: 'controlled',
    initialValues,
    validate: (values) => (options.mapErrors ?? ((errors) => errors))(resolve(values)),
    validateInputOnChange: true,
    validateInputOnBlur: true,
  })
  const [left, setLeft] = useState<ReadonlySet<string>>(() => new Set())
  const [submitted, setSubmitted] = useState(false)
  const [submitting, setSubmitting] = useState(false)
  const [formError, setFormError] = useState<string | null>(options.initialError ?? null)

  /** The value, change, blur and error props of a field's input. */
  const field = (name: keyof V & string) => {
    const props = form.getInputProps(name)
    return {
      ...props,
      error: submitted || left.has(name) ? props.error : undefined,
      onBlur: () => {
        setLeft((current) => new Set(current).add(name))
        props.onBlur?.()
      },
    }
  }

  /** The form's onSubmit: shows every field's error and clears the form error; nothing is sent while a field is invalid. */
  const onSubmit = (handler: (values: V) => void | Promise<void>) =>
    form.onSubmit(
      (values) => {
        setSubmitted(true)
        setFormError(null)
        setSubmitting(true)
        return handler(values)
      },
      () => {
        setSubmitted(true)
        setFormError(null)
      },
    )

  return { values: form.values, field, onSubmit, submitting, setSubmitting, formError, setFormError }
}
