import type { ClientRoutePath } from '@citrus/contracts'
import { lazy, type ComponentType } from 'react'
import { NotAuthorizedPage } from '../../components/errors/not-authorized-page'

/** A screen loaded on first visit, so each feature is its own chunk of the build. */
function lazyPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(async () => ({ default: (await load())[name] }))
}

const AppsRoute = lazyPage(() => import('../../features/launcher/routes/apps'), 'AppsRoute')

/**
 * The screen of each documented path. A path missing here renders the "coming soon" page of its app,
 * so registering a feature's screen is one line.
 */
export const PAGES: Partial<Record<ClientRoutePath, ComponentType>> = {
  '/': AppsRoute,
  '/apps': AppsRoute,
  '/sign-in': lazyPage(() => import('../../features/auth/routes/sign-in'), 'SignInRoute'),
  '/sign-up': lazyPage(() => import('../../features/auth/routes/sign-up'), 'SignUpRoute'),
  '/password-reset-email': lazyPage(() => import('../../features/auth/routes/password-reset-email'), 'PasswordResetEmailRoute'),
  '/password-reset': lazyPage(() => import('../../features/auth/routes/password-reset'), 'PasswordResetRoute'),
  '/data-dictionary': lazyPage(() => import('../../features/data-dictionary/routes/data-dictionary'), 'DataDictionaryRoute'),
  '/user-settings': lazyPage(() => import('../../features/launcher/routes/user-settings'), 'UserSettingsRoute'),
  '/not-authorized': NotAuthorizedPage,
  '/api-keys': lazyPage(() => import('../../features/api-keys/routes/api-keys'), 'ApiKeysRoute'),
  '/team-management': lazyPage(() => import('../../features/team/routes/team-management'), 'TeamManagementRoute'),
  '/citrus-admin': lazyPage(() => import('../../features/super-admin/routes/citrus-admin'), 'CitrusAdminRoute'),
  '/company/:companyId/users': lazyPage(() => import('../../features/super-admin/routes/company-users'), 'CompanyUsersRoute'),
  '/price-check': lazyPage(() => import('../../features/price-check/routes/price-check'), 'PriceCheckRoute'),
  '/price-check/results': lazyPage(() => import('../../features/price-check/routes/price-check-results'), 'PriceCheckResultsRoute'),
  '/provider-cost-transparency/:npi': lazyPage(
    () => import('../../features/provider-cost-transparency/routes/provider-cost-transparency'),
    'ProviderCostTransparencyRoute',
  ),
  '/nova-search': lazyPage(() => import('../../features/nova/routes/nova-search'), 'NovaSearchRoute'),
  '/nova-results': lazyPage(() => import('./nova-results-page'), 'NovaResultsPage'),
  '/ai-hub': lazyPage(() => import('../../features/ai-hub/routes/ai-hub'), 'AiHubRoute'),
  '/care-connect-search': lazyPage(() => import('../../features/care-connect/routes/care-connect-search'), 'CareConnectSearchRoute'),
  '/care-connect-results': lazyPage(() => import('../../features/care-connect/routes/care-connect-results'), 'CareConnectResultsRoute'),
  '/member-recommendations': lazyPage(
    () => import('../../features/care-connect/routes/member-recommendations'),
    'MemberRecommendationsRoute',
  ),
  '/atlas-search': lazyPage(() => import('../../features/atlas/routes/atlas-search'), 'AtlasSearchRoute'),
  '/atlas/generic': lazyPage(() => import('../../features/atlas/routes/atlas-generic'), 'AtlasGenericRoute'),
  '/atlas/generic/results': lazyPage(() => import('./atlas-generic-results-page'), 'AtlasGenericResultsPage'),
}

/** Paths rendered without the app shell (sidebar, header). */
export const BARE_PATHS: ReadonlySet<ClientRoutePath> = new Set<ClientRoutePath>([
  '/sign-in',
  '/sign-up',
  '/password-reset-email',
  '/password-reset',
  '/not-authorized',
])
