import { useGuestSession } from '../../lib/guest-session'
import { homeFor, type Viewer } from '../../lib/navigation'
import { useSession } from '../../lib/session'

/** The viewer of the shell: a login token wins over a shared-link session (spec 1 §4). */
export function useViewer(): Viewer {
  const session = useSession()
  const guest = useGuestSession()
  if (session.authenticated) return { kind: 'signed-in', role: session.role }
  if (guest.status === 'active' || guest.status === 'validating') return { kind: 'link-guest' }
  return { kind: 'anonymous' }
}

/** The target of the viewer's "home" actions, or null when there is none (a shared-link visitor). */
export function useHomePath(): string | null {
  return homeFor(useViewer())
}
