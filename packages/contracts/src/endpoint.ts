import type { z } from 'zod'
import { errorEnvelopeSchema } from './errors.js'

/**
 * One definition per endpoint (issue 9 §3): method, documented path, inputs, the success response and
 * the error statuses it may answer with. The server registers its routes from these definitions and
 * the web client calls them with `api(endpoint, input)`, so both sides share one set of zod schemas,
 * and the OpenAPI document is generated from the same objects.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** Error statuses an endpoint may document; each is answered with the error envelope. */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 503

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>

/** Credentials an endpoint accepts (OpenAPI security schemes); absent = public. */
export type EndpointCredential = 'bearer' | 'shareToken'

export interface EndpointDefinition {
  method: HttpMethod
  /** the documented path relative to /api, with `{name}` placeholders (spec: POST /users/login) */
  path: `/${string}`
  /** 'root' for the probes served outside /api (/healthz, /readyz); 'api' unless given */
  mount?: 'api' | 'root'
  summary: string
  /** OpenAPI tags; the first is the area */
  tags: readonly string[]
  description?: string
  params?: AnyObjectSchema
  query?: AnyObjectSchema
  body?: z.ZodType
  /** the success body (use z.void() / z.undefined() for 204) */
  response: z.ZodType
  /** success status; 200 unless given */
  status?: 200 | 201 | 202 | 204
  /** error statuses the endpoint documents (each with the error envelope) */
  errors: readonly ErrorStatus[]
  /** an error status answered with another body than the envelope (/readyz answers 503 with its report) */
  errorBodies?: Partial<Record<ErrorStatus, z.ZodType>>
  /** credentials the endpoint accepts: a login JWT or API key (`bearer`), a shareable link token (`shareToken`) */
  security?: readonly EndpointCredential[]
  /**
   * The message of the 400 for input the schemas refuse, when a form documents one: `message` always,
   * else the first field message found in `priority` (else the first field message). The per-field
   * errors are kept. Without it the message is the generic "Invalid body.x: ..." one.
   */
  invalidInput?: { message?: string; priority?: readonly string[] }
}

/** Declares an endpoint; keeps the literal types so that inputs and outputs can be inferred. */
export function defineEndpoint<const D extends EndpointDefinition>(definition: D): D {
  return definition
}

type InputOf<S> = S extends z.ZodType ? z.input<S> : never
type Part<D, K extends 'params' | 'query' | 'body'> = D extends { [P in K]: z.ZodType }
  ? Record<never, never> extends InputOf<D[K]>
    ? { [P in K]?: InputOf<D[K]> }
    : { [P in K]: InputOf<D[K]> }
  : { [P in K]?: never }

/** What a caller passes: `params`, `query` and `body` as the definition declares them. */
export type EndpointInput<D extends EndpointDefinition> = Part<D, 'params'> & Part<D, 'query'> & Part<D, 'body'>
/** What a caller gets back on success. */
export type EndpointOutput<D extends EndpointDefinition> = z.output<D['response']>
/** What a handler receives after validation. */
export type EndpointParsedBody<D extends EndpointDefinition> = D extends { body: z.ZodType } ? z.output<D['body']> : undefined

/** `{name}` placeholders of a documented path. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string)
}

/** The Fastify/find-my-way form of a documented path: `/company/{id}/users` → `/company/:id/users`. */
export function routerPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1')
}

/** The path as served: `/api` + the documented path, or the path itself for the probes mounted at the root. */
export function servedPath(definition: Pick<EndpointDefinition, 'path' | 'mount'>): string {
  return definition.mount === 'root' ? definition.path : `/api${definition.path}`
}

/** Which of several validation messages a form or the server reports first. */
export function firstMessageByPriority(messages: readonly string[], priority: readonly string[]): string | undefined {
  for (const candidate of priority) if (messages.includes(candidate)) return candidate
  return messages[0]
}

/** The documented message of a 400 for refused input (see `invalidInput`); undefined = the generic one. */
export function invalidInputMessage(definition: EndpointDefinition, fieldMessages: readonly string[]): string | undefined {
  const rule = definition.invalidInput
  if (!rule) return undefined
  return rule.message ?? firstMessageByPriority(fieldMessages, rule.priority ?? [])
}

/** The response map of an endpoint for OpenAPI and serialisation: success plus one envelope per error. */
export function responseSchemas(definition: EndpointDefinition): Record<number, z.ZodType> {
  const responses: Record<number, z.ZodType> = { [definition.status ?? 200]: definition.response }
  for (const status of definition.errors) responses[status] = definition.errorBodies?.[status] ?? errorEnvelopeSchema
  return responses
}

/** The OpenAPI security requirement of an endpoint: any one of its credentials. */
export function securityRequirements(definition: EndpointDefinition): Array<Record<string, string[]>> | undefined {
  return definition.security?.map((credential) => ({ [credential]: [] }))
}
