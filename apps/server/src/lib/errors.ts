import { ERROR_CODES, type ErrorCode, type ErrorEnvelope, type FieldError } from '@citrus/contracts'

/** The one error type routes throw; the error handler turns it into the envelope. */
export class AppError extends Error {
  override name = 'AppError'
  constructor(
    readonly status: number,
    readonly code: ErrorCode | string,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message)
  }

  toEnvelope(): ErrorEnvelope {
    return {
      message: this.message,
      code: this.code,
      status: this.status,
      ...(this.errors ? { errors: this.errors } : {}),
    }
  }
}

export const badRequest = (message: string, errors?: FieldError[]) => new AppError(400, ERROR_CODES.BAD_REQUEST, message, errors)
export const unauthorized = (message = 'Authentication required') => new AppError(401, ERROR_CODES.UNAUTHORIZED, message)
export const forbidden = (message = 'You do not have permission to perform this action') =>
  new AppError(403, ERROR_CODES.FORBIDDEN, message)
export const notFound = (message = 'Not found') => new AppError(404, ERROR_CODES.NOT_FOUND, message)
export const conflict = (message: string) => new AppError(409, ERROR_CODES.CONFLICT, message)
