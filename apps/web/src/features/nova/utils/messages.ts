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
  viewingRegion: (id: string) => `Viewing Region ${id}`,
  facilityFailed: 'Failed to load facility details',
  /** the label of the panels' pin toggle (issue 14); its toasts are the AI Hub's ('{name} saved to AI Hub!') */
  saveToHub: 'Save to AI Hub',
  savedToHub: 'Saved to AI Hub',
  moreEntries: (n: number) => `+${n} more`,
  searchTitle: 'Nova Territory Intelligence',
  searchDescription:
    'Antivenom market intelligence: envenomation cases, CroFab and Anavip usage and buying, and top prescribers by territory.',
} as const
