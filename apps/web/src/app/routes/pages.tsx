import type { ClientRoutePath } from '@citrus/contracts'
import type { ComponentType } from 'react'
import { NotAuthorizedPage } from '../../components/errors/not-authorized-page'
import { PasswordResetRoute } from '../../features/auth/routes/password-reset'
import { PasswordResetEmailRoute } from '../../features/auth/routes/password-reset-email'
import { SignInRoute } from '../../features/auth/routes/sign-in'
import { SignUpRoute } from '../../features/auth/routes/sign-up'
import { DataDictionaryRoute } from '../../features/data-dictionary/routes/data-dictionary'
import { AppsRoute } from '../../features/launcher/routes/apps'
import { UserSettingsRoute } from '../../features/launcher/routes/user-settings'

/**
 * The screen of each documented path. A path missing here renders the "coming soon" page of its app,
 * so registering a feature's screen is one line.
 */
export const PAGES: Partial<Record<ClientRoutePath, ComponentType>> = {
  '/': AppsRoute,
  '/apps': AppsRoute,
  '/sign-in': SignInRoute,
  '/sign-up': SignUpRoute,
  '/password-reset-email': PasswordResetEmailRoute,
  '/password-reset': PasswordResetRoute,
  '/data-dictionary': DataDictionaryRoute,
  '/user-settings': UserSettingsRoute,
  '/not-authorized': NotAuthorizedPage,
}

/** Paths rendered without the app shell (sidebar, header). */
export const BARE_PATHS: ReadonlySet<ClientRoutePath> = new Set<ClientRoutePath>([
  '/sign-in',
  '/sign-up',
  '/password-reset-email',
  '/password-reset',
  '/not-authorized',
])
