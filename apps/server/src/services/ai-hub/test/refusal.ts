import { expect } from 'vitest'
import { AppError } from '../../../lib/errors.ts'

/** The AppError a promise is refused with (for the AI Hub's tests of refused documents). */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(AppError)
  return error as AppError
}
