import { useCallback } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { postLoginPath } from '../../../lib/authorization'
import { endGuestSession } from '../../../lib/guest-session'
import { login } from '../../../lib/session'

/** Stores a fresh login token and navigates to the origin remembered by the guard, else the role's home. */
export function useCompleteLogin() {
  const navigate = useNavigate()
  const location = useLocation()
  const from = (location.state as { from?: string } | null)?.from
  return useCallback(
    (token: string, options: { ignoreOrigin?: boolean; to?: string } = {}) => {
      endGuestSession()
      const session = login(token)
      const target = options.to ?? postLoginPath(session.role, options.ignoreOrigin ? null : from)
      navigate(target, { replace: true })
    },
    [from, navigate],
  )
}
