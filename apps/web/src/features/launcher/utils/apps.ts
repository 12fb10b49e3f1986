import type { ProductGroup, SessionRole } from '@citrus/contracts'

/** Launcher app card (spec 1 §2). */
export interface LauncherApp {
  id: string
  title: string
  subtitle: string
  description: string
  features: string[]
  category: string
  status?: 'New' | 'Beta'
  url: string
  /** null: not a product of its own (available to every role listed) */
  productGroup: ProductGroup | null
  roles: readonly SessionRole[]
  icon: 'atlas' | 'nova' | 'care' | 'price'
  image?: string
}

export const LAUNCHER_APPS: LauncherApp[] = [
  {
    id: 'atlas',
    title: 'Atlas',
    subtitle: 'Patient population intelligence',
    description: 'Find where patients with the conditions you care about are, with payer mix, hotspots and the facilities that treat them.',
    features: ['Condition-based search', 'Interactive maps', 'Payer mix'],
    category: 'Market Intelligence',
    status: 'New',
    url: '/atlas-search',
    productGroup: 'ATLAS',
    roles: ['admin', 'citrus', 'user'],
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
    productGroup: 'CARE_SELECT',
    roles: ['admin', 'citrus', 'user'],
    icon: 'care',
  },
  {
    id: 'nova',
    title: 'Nova',
    subtitle: 'Territory intelligence with AI',
    description: 'Antivenom territory intelligence: envenomation cases, purchases and usage by facility and sales territory, with the AI Hub.',
    features: ['Territory maps', 'AI Hub', 'Opportunity scores'],
    category: 'Commercial Strategy',
    status: 'New',
    url: '/nova-search',
    productGroup: 'NOVA',
    roles: ['citrus'],
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
    productGroup: null,
    roles: ['member', 'admin', 'citrus', 'user'],
    icon: 'price',
  },
]

/** Only cards for products the company holds and the role may open (spec 1 §2, §6). */
export function visibleApps(apps: readonly LauncherApp[], role: SessionRole, products: readonly ProductGroup[]): LauncherApp[] {
  return apps.filter((app) => app.roles.includes(role) && (app.productGroup === null || products.includes(app.productGroup)))
}

export function hasAccess(app: LauncherApp, products: readonly ProductGroup[]): boolean {
  return app.productGroup === null || products.includes(app.productGroup)
}

export const LAUNCHER_SUBTITLE = "Explore different apps for your organization's needs"
export const productUnavailableMessage = (email: string) =>
  `It looks like your organization doesn't have access to this product yet. Contact us at ${email} for access.`
