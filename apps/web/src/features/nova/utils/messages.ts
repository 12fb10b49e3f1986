/** Nova screen texts (spec 2 §2, §4, §8); pinned in test/messages-nova.test.ts. */
export const NOVA_CLIENT_MESSAGES = {
  loadingFilters: 'Loading filters...',
  expandSidebar: 'Expand sidebar',
  collapseSidebar: 'Collapse sidebar',
  exploreHealthSystems: 'Explore Health Systems',
  exploreHealthSystemsHint:
    'Pick a health system or an independent facility in the list to see its hospitals, prescribers and antivenom metrics.',
  noHealthSystemSelected: 'No Health System Selected',
  noHospitalSelected: 'No Hospital Selected',
  noProviderSelected: 'No Provider Selected',
  noMetrics: 'No Metrics Available',
  noCategoryData: (category: string) => `No ${category} Data`,
  noProviderMetrics: 'No detailed metrics available for this provider',
  noTopHcps: 'No Top HCP Data Available',
  noProviders: 'No providers available for this selection',
  fetchingMap: 'Fetching map data...',
  mapError: (message: string) => `Error loading map data: ${message}`,
  facilityFailed: 'Failed to load facility details',
  savedToHub: (name: string) => `${name} saved to AI Hub!`,
  removedFromHub: (name: string) => `${name} removed from AI Hub`,
  moreEntries: (n: number) => `+${n} more`,
  searchTitle: 'Nova Territory Intelligence',
  searchDescription:
    'Antivenom market intelligence: envenomation cases, CroFab and Anavip usage and buying, and top prescribers by territory.',
  strategyHubHint: 'Pinned insights from the detail panels are the context of the AI Hub.',
} as const
