import type { EndpointDefinition, EndpointInput, EndpointOutput } from '@citrus/contracts'
import {
  useMutation,
  useQuery,
  useQueryClient,
  type QueryKey,
  type UseMutationOptions,
  type UseMutationResult,
  type UseQueryOptions,
  type UseQueryResult,
} from '@tanstack/react-query'
import { callEndpoint } from '../lib/api-client'

/**
 * The one query-key convention: `[method, path, input]` of the endpoint. Every query of an endpoint
 * shares the `[method, path]` prefix, which is what a mutation invalidates.
 */
export function endpointKey<D extends EndpointDefinition>(endpoint: D, input?: EndpointInput<D>): QueryKey {
  return input === undefined ? [endpoint.method, endpoint.path] : [endpoint.method, endpoint.path, input]
}

export type ApiQueryOptions<D extends EndpointDefinition, TData = EndpointOutput<D>> = Omit<
  UseQueryOptions<EndpointOutput<D>, Error, TData>,
  'queryKey' | 'queryFn'
>

/** Server state of one endpoint call: cached, de-duplicated and cancelled with the component. */
export function useApiQuery<D extends EndpointDefinition, TData = EndpointOutput<D>>(
  endpoint: D,
  input: EndpointInput<D>,
  options: ApiQueryOptions<D, TData> = {},
): UseQueryResult<TData, Error> {
  return useQuery({
    ...options,
    queryKey: endpointKey(endpoint, input),
    queryFn: ({ signal }) => callEndpoint(endpoint, input, { signal }),
  })
}

export type ApiMutationOptions<D extends EndpointDefinition> = Omit<
  UseMutationOptions<EndpointOutput<D>, Error, EndpointInput<D>>,
  'mutationFn'
> & {
  /** endpoints whose cached answers this change makes stale; they are refetched before the mutation settles */
  invalidates?: readonly EndpointDefinition[]
}

/** A change through one endpoint; on success the endpoints it `invalidates` are refetched. */
export function useApiMutation<D extends EndpointDefinition>(
  endpoint: D,
  { invalidates = [], onSuccess, ...options }: ApiMutationOptions<D> = {},
): UseMutationResult<EndpointOutput<D>, Error, EndpointInput<D>> {
  const queryClient = useQueryClient()
  return useMutation({
    ...options,
    mutationFn: (input) => callEndpoint(endpoint, input),
    onSuccess: async (...args) => {
      await Promise.all(invalidates.map((stale) => queryClient.invalidateQueries({ queryKey: endpointKey(stale) })))
      return onSuccess?.(...args)
    },
  })
}
