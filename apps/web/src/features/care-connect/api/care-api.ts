import { endpoints, type EndpointOutput, type RankingsQuery, type ReferralLetterRequest } from '@citrus/contracts'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useCallback, useState } from 'react'
import { endpointKey, useApiMutation, useApiQuery } from '../../../hooks/use-api'
import { callEndpoint, downloadEndpoint } from '../../../lib/api-client'

export type Rankings = EndpointOutput<typeof endpoints.careSelect.rankings>
export type HcpRow = Rankings['hcp_rankings'][number]
export type HcoRow = Rankings['hco_rankings'][number]

/** How long a search's answer is fresh in the client's cache. */
const RANKINGS_STALE_MS = 5 * 60_000

/**
 * GET /care-select/rankings: the rankings of a search; runs only once `enabled` (member screens: after access is
 * granted). `linkToken`: the shareable link a signed-in member opened; it goes beside the login
 * token so the server holds the request to the link (authorized_user_ids, api_endpoints; docs/decisions/0046).
 */
export function useRankings(query: RankingsQuery | null, enabled = true, linkToken: string | null = null) {
  const base = query ?? { zip_code: '', omni_code: '' }
  return useApiQuery(
    endpoints.careSelect.rankings,
    { query: linkToken ? { ...base, token: linkToken } : base },
    {
      enabled: enabled && query !== null,
      staleTime: RANKINGS_STALE_MS,
      retry: false,
      // a search is metered (one credit an answer) and its results screen holds the user's sort, page, filters and
      // selection: it is fetched again only when the search changes, never behind the user's back
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
    },
  )
}

/**
 * Runs a search before its results screen opens, so that the form's button reads Finding Providers... while it
 * loads (spec 3 §2.1). The answer lands in the query cache under useRankings' key, so the results screen shows it
 * without asking again (one request, one credit). A failed search settles too: the results screen shows its error.
 */
export function useFindProviders() {
  const queryClient = useQueryClient()
  const [busy, setBusy] = useState(false)
  const find = useCallback(
    async (query: RankingsQuery) => {
      const input = { query }
      setBusy(true)
      try {
        await queryClient.prefetchQuery({
          queryKey: endpointKey(endpoints.careSelect.rankings, input),
          queryFn: ({ signal }) => callEndpoint(endpoints.careSelect.rankings, input, { signal }),
          staleTime: RANKINGS_STALE_MS,
        })
      } finally {
        setBusy(false)
      }
    },
    [queryClient],
  )
  return { busy, find }
}

export function useSpecialtyOptions(query: string, enabled: boolean) {
  return useApiQuery(endpoints.typeahead.omni, { query: { query, limit: 100 } }, { enabled, staleTime: 10 * 60_000 })
}
export function useCptOptions(query: string) {
  return useApiQuery(endpoints.typeahead.cpt, { query: { query, limit: 10 } }, { enabled: query.trim().length > 0, staleTime: 10 * 60_000 })
}
export function useIcdOptions(query: string) {
  return useApiQuery(
    endpoints.typeahead.icd10,
    { query: { query, limit: 10 } },
    { enabled: query.trim().length > 0, staleTime: 10 * 60_000 },
  )
}

export const useCreateShareableUrl = () => useApiMutation(endpoints.shareableUrl.create)
export const useSendMemberLink = () => useApiMutation(endpoints.careSelect.sendMemberLink)
export const useVerifyUser = () => useApiMutation(endpoints.users.verify)
export const useLogin = () => useApiMutation(endpoints.users.login)
export const useMemberSignup = () => useApiMutation(endpoints.memberAccess.memberSignup)
export const useSendCode = () => useApiMutation(endpoints.memberAccess.sendVerificationCode)
export const useConfirmCode = () => useApiMutation(endpoints.memberAccess.confirmVerificationCode)

/** POST /care-select/referral-letter: the PDF, saved as referral_letter.pdf (spec 3 §4.7). */
export function useReferralLetter() {
  return useMutation({
    mutationFn: (body: ReferralLetterRequest) =>
      downloadEndpoint(endpoints.careSelect.referralLetter, { body }, { headers: { Accept: 'application/pdf' } }),
  })
}
