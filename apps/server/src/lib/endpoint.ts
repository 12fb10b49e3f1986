import {
  responseSchemas,
  routerPath,
  securityRequirements,
  servedPath,
  type EndpointDefinition,
  type ErrorEnvelope,
} from '@citrus/contracts'
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  HTTPMethods,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { z } from 'zod'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the contract this route serves (set by `route`; the registry refuses /api routes without one) */
    endpoint?: EndpointDefinition
  }
}

type Field<D, K extends string> = D extends { [P in K]: infer S extends z.ZodType } ? S : undefined
type SuccessStatus<D> = D extends { status: infer S extends number } ? S : 200
type ErrorBody<D, S> = D extends { errorBodies: { [P in S & number]: infer B extends z.ZodType } } ? B : z.ZodType<ErrorEnvelope>

/** The Fastify route schema of a definition, as the zod type provider reads it to type request and reply. */
export type EndpointSchema<D extends EndpointDefinition> = {
  params: Field<D, 'params'>
  querystring: Field<D, 'query'>
  body: Field<D, 'body'>
  response: { [S in SuccessStatus<D>]: D['response'] } & { [S in D['errors'][number]]: ErrorBody<D, S> }
  tags: string[]
  summary: string
}

/** Route options other than url, method and schema (those come from the definition). */
export type EndpointOptions<D extends EndpointDefinition> = Omit<
  RouteShorthandOptions<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    EndpointSchema<D>,
    ZodTypeProvider,
    FastifyBaseLogger
  >,
  'schema' | 'attachValidation'
>

export type EndpointHandler<D extends EndpointDefinition> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  EndpointSchema<D>,
  ZodTypeProvider,
  FastifyBaseLogger
>

/** The Fastify route schema (and OpenAPI operation) of a definition. */
export function endpointSchema(definition: EndpointDefinition) {
  const security = securityRequirements(definition)
  return {
    ...(definition.params ? { params: definition.params } : {}),
    ...(definition.query ? { querystring: definition.query } : {}),
    ...(definition.body ? { body: definition.body } : {}),
    response: responseSchemas(definition),
    tags: [...definition.tags],
    summary: definition.summary,
    ...(definition.description ? { description: definition.description } : {}),
    ...(security ? { security } : {}),
  }
}

/**
 * Registers the route of an endpoint definition: url, method and schema come from the contract, so
 * the request (params, query, body) and the reply are typed by the same zod schemas the client uses.
 * The scope must be the one the definition is mounted in (/api, or the root for the probes).
 */
export function route<const D extends EndpointDefinition>(
  app: Pick<FastifyInstance, 'withTypeProvider' | 'prefix'>,
  definition: D,
  options: EndpointOptions<D>,
  handler: EndpointHandler<D>,
): void {
  const expectedPrefix = definition.mount === 'root' ? '' : '/api'
  if (app.prefix !== expectedPrefix) {
    throw new Error(
      `${definition.method} ${servedPath(definition)} must be registered in the scope with prefix '${expectedPrefix}', not '${app.prefix}'`,
    )
  }
  app.withTypeProvider<ZodTypeProvider>().route<RouteGenericInterface, ContextConfigDefault, EndpointSchema<D>>({
    ...options,
    method: definition.method satisfies HTTPMethods,
    url: routerPath(definition.path),
    schema: endpointSchema(definition) as unknown as EndpointSchema<D>,
    config: { ...options.config, endpoint: definition },
    handler,
  })
}

/**
 * Sends JSON written by the route (text or UTF-8 bytes) without the zod serialiser of its schema: the reply's typed
 * send accepts only the schema's object, hence the untyped reply. Compression, when the client accepts it, is
 * @fastify/compress's (docs/decisions/0077).
 */
export function sendJsonText(reply: FastifyReply, body: string | Buffer): FastifyReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(body)
}
