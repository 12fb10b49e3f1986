import type { OperationOutcome } from '@citrus/contracts'
import type { FastifyError, FastifyRequest } from 'fastify'
import { toEnvelope } from '../plugins/error-handler.js'

/** The FHIR issue-type code for an HTTP status (http://hl7.org/fhir/issue-type). */
const ISSUE_CODES: Record<number, string> = {
  400: 'invalid',
  401: 'login',
  402: 'business-rule',
  403: 'forbidden',
  404: 'not-found',
  405: 'not-supported',
  406: 'not-supported',
  413: 'too-costly',
  414: 'too-costly',
  415: 'not-supported',
  429: 'throttled',
}

/** An error of the /fhir scope: answered as an OperationOutcome with its status. */
export class FhirError extends Error {
  override name = 'FhirError'
  constructor(
    readonly status: number,
    readonly issueCode: string,
    message: string,
    readonly expression?: string,
  ) {
    super(message)
  }
}

export const invalid = (message: string, expression?: string) => new FhirError(400, 'invalid', message, expression)
export const notSupported = (message: string, expression?: string) => new FhirError(400, 'not-supported', message, expression)
export const fhirNotFound = (message: string) => new FhirError(404, 'not-found', message)

export function operationOutcome(severity: 'error' | 'warning', code: string, diagnostics: string, expression?: string): OperationOutcome {
  return { resourceType: 'OperationOutcome', issue: [{ severity, code, diagnostics, ...(expression ? { expression: [expression] } : {}) }] }
}

/** Any error thrown under /fhir as status and OperationOutcome; a 5xx shows no internals (as the JSON API's envelope). */
export function outcomeOf(error: FastifyError | Error, request: FastifyRequest): { status: number; body: OperationOutcome } {
  if (error instanceof FhirError)
    return { status: error.status, body: operationOutcome('error', error.issueCode, error.message, error.expression) }
  const envelope = toEnvelope(error, request)
  const code = ISSUE_CODES[envelope.status] ?? (envelope.status >= 500 ? 'exception' : 'invalid')
  return { status: envelope.status, body: operationOutcome('error', code, envelope.message) }
}
