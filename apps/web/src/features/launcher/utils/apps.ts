import { CLIENT_ROUTES, type ClientRoute, type ClientRoutePath, type ProductGroup, type SessionRole } from '@citrus/contracts'
import { APP_STATUS, type AppStatus } from '../../../components/brand/app-status-badge'
import { canOpenPath } from '../../../lib/authorization'

/** Launcher app card (spec 1 §2). */
export interface LauncherApp {
  id: string
  title: string
  subtitle: string
  description: string
  features: string[]
  category: string
  status?: AppStatus
  url: ClientRoutePath
  /** the route's product group; null when the route needs none */
  productGroup: ProductGroup | null
  roles: readonly SessionRole[]
  icon: 'atlas' | 'nova' | 'care' | 'price'
  image?: string
}

/** What a card states itself; status, roles and product group come from its route (one rule with the guard). */
type CardText = Omit<LauncherApp, 'status' | 'productGroup' | 'roles'>

function fromRoute(card: CardText): LauncherApp {
  const route = (CLIENT_ROUTES as readonly ClientRoute[]).find((candidate) => candidate.path === card.url)
  if (!route) throw new Error(`No client route ${card.url}`)
  const status = APP_STATUS[route.area]
  return { ...card, ...(status ? { status } : {}), productGroup: route.product ?? null, roles: route.roles ?? [] }
}

const CARDS: CardText[] = [
  {
    id: 'atlas',
    title: 'Atlas',
    subtitle: 'Patient population intelligence',
    description: 'Find where patients with the conditions you care about are, with payer mix, hotspots and the facilities that treat them.',
    features: ['Condition-based search', 'Interactive maps', 'Payer mix'],
    category: 'Market Intelligence',
    url: '/atlas-search',
    icon: 'atlas',
  },
  {
    id: 'care-connect',
    title: 'Care Connect',
    subtitle: 'Search for High Quality Care, Affordable Care',
    description: 'Rank providers and facilities near a patient by quality, cost and distance, compare them and send them to members.',
    features: ['Provider rankings', 'Referral letters', 'Member links'],
    category: 'Care Navigation',
    url: '/care-connect-search',
    icon: 'care',
  },
  {
    id: 'nova',
    title: 'Nova',
    subtitle: 'Territory intelligence with AI',
    description:
      'Antivenom territory intelligence: envenomation cases, purchases and usage by facility and sales territory, with the AI Hub.',
    features: ['Territory maps', 'AI Hub', 'Opportunity scores'],
    category: 'Commercial Strategy',
    url: '/nova-search',
    icon: 'nova',
  },
  {
    id: 'price-check',
    title: 'Price Check',
    subtitle: 'Compare procedure prices',
    description: 'Compare what a procedure costs at facilities near you, with your insurer’s negotiated rate and your share.',
    features: ['Negotiated rates', 'Cost transparency'],
    category: 'Price Transparency',
    url: '/price-check',
    icon: 'price',
  },
]

export const LAUNCHER_APPS: LauncherApp[] = CARDS.map(fromRoute)

/** Only cards the role may open and whose product the company holds: the route guard's own rule (spec 1 §2, §6). */
export function visibleApps(apps: readonly LauncherApp[], role: SessionRole, products: readonly ProductGroup[]): LauncherApp[] {
  return apps.filter((app) => canOpenPath(app.url, role, products))
}

export function hasAccess(app: LauncherApp, products: readonly ProductGroup[]): boolean {
  return app.productGroup === null || products.includes(app.productGroup)
}

export const LAUNCHER_SUBTITLE = "Explore different apps for your organization's needs"
export const productUnavailableMessage = (email: string) =>
  `It looks like your organization doesn't have access to this product yet. Contact us at ${email} for access.`
