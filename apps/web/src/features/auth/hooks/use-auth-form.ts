import { useState, type FormEvent } from 'react'
import type { FieldErrors } from '../utils/validation'

/**
 * The state of an account form (spec 1 §4, §5): field values, a field's error shown once it was left or the
 * form submitted, the submitting flag and the form-level error.
 */
export function useAuthForm<F extends string>(
  initial: Record<F, string> | (() => Record<F, string>),
  validate: (values: Record<F, string>) => FieldErrors<F>,
  initialError: string | null = null,
) {
  const [values, setValues] = useState(initial)
  const [touched, setTouched] = useState<Partial<Record<F, boolean>>>({})
  const [submitted, setSubmitted] = useState(false)
  const [submitting, setSubmitting] = useState(false)
  const [formError, setFormError] = useState<string | null>(initialError)

  const errors = validate(values)
  const show = (field: F) => (submitted || touched[field] ? errors[field] : undefined)
  const set = (field: F) => (event: { currentTarget: HTMLInputElement }) => {
    const value = event.currentTarget.value
    setValues((current) => ({ ...current, [field]: value }))
  }
  const blur = (field: F) => () => setTouched((current) => ({ ...current, [field]: true }))
  /** The value, change, blur and error props of a field's input. */
  const field = (name: F) => ({ value: values[name], onChange: set(name), onBlur: blur(name), error: show(name) })
  /** Starts a submit: shows every field's error and clears the form error; false (nothing sent) while a field is invalid. */
  const begin = (event: FormEvent): boolean => {
    event.preventDefault()
    setSubmitted(true)
    setFormError(null)
    if (Object.keys(errors).length > 0) return false
    setSubmitting(true)
    return true
  }

  return { values, field, begin, submitting, setSubmitting, formError, setFormError }
}
