import { ATLAS_MESSAGES } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'

/*
 * Every Atlas message of spec 2 (§2, §5, §6, §8) and of the server's Atlas refusals (docs/decisions/0033),
 * pinned as literal text copied from the specification or the decision record, never read from the
 * constants under test. A message that gains a key without a row here fails the completeness check.
 */
const PINNED: Record<keyof typeof ATLAS_MESSAGES, string> = {
  customZipsLocked: 'Business subscription required to search custom ZIP codes',
  facilitiesLocked: 'Business+ subscription required to view facilities and hospitals',
  providersLocked: 'Business+ subscription required to view providers',
  csvLocked: 'Upgrade to Business+ to export data to CSV',
  hcoPointsLocked: 'Business+ subscription required to view facility points',
  invalidCode: 'Invalid ICD-10-CM code: X99!',
  tooManyCodes: 'At most 50 ICD-10-CM codes',
  unknownState: 'Unknown state: ZZ',
  unknownZip: 'Unknown ZIP code: 00000',
  invalidZip: 'Please enter a valid 5-digit ZIP code',
  tooManyZips: 'At most 500 ZIP codes',
  ageRange: 'min_age must not be greater than max_age',
  invalidTile: 'Tile coordinates are out of range',
  unknownUseCase: 'Unknown Atlas use case: other',
  facilityNotFound: 'Facility not found',
  emptyTitle: 'Ready to Discover Healthcare Insights',
  searchFailedTitle: 'Search Failed',
  searchFailed: 'Search failed',
  selectConditionHelper: 'Select at least one condition to begin search',
  selectCondition: 'Select at least one condition',
  enterZip: 'Enter at least one ZIP code',
  customZipTooltip: 'Upgrade to the Business tier to search custom ZIP codes',
  noResults: 'No Results Available',
  noInsurance: 'Insurance data not available',
  overviewError: 'Error Loading Overview',
  noStateData: 'No State-Level Data',
  noData: 'No Data Available',
  listError: 'Error Loading List',
  csvTooltip: 'Upgrade to Business+ to export data to CSV',
  scoreTooltip: 'Upgrade to Enterprise for the score',
  selectOnlyOne: 'Select Only 1',
  applying: 'Applying...',
  applyFilter: 'Apply Filter',
  noGeoData: 'No Geographic Data',
  mapError: 'Error Loading Map',
  noGeoDataCriteria: 'No geographic data available for the selected criteria',
  premiumTitle: 'Premium Feature Required',
  premiumHospitals: 'Business+ subscription required to view hospitals of a state',
  premiumProcedureTitle: 'Premium Feature - Business+',
  premiumProcedure: 'Add HCPCS procedure codes to refine your search results',
  learnMore: 'Learn More',
  invalidZipChip: 'Invalid ZIP code format. Expected 5 digits.',
  csvOnly: 'Please upload a CSV file',
  csvParseFailed: 'Failed to parse CSV file',
  zipsAdded: 'Added 3 ZIP code(s). Skipped 1 invalid entry.',
  countryFailed: 'Failed to fetch country data',
  drilldownFailed: 'Failed to fetch drilldown data',
  fallbackNote: 'Note: Using fallback data. Drilldown error: boom',
  hospitalsFailed: 'Failed to fetch hospital data',
  hospitalsError: 'Error loading hospitals: boom',
  atlasFailed: 'Failed to fetch atlas data',
  stateDrilldownFailed: 'Failed to fetch state drill-down data',
  facilityDrilldownFailed: 'Failed to fetch facility drill-down data',
  mapLoadFailed: 'Failed to Load Map Data',
  noMapData: 'No Map Data Available',
  noMapDataText: 'There is no map data to display for the current filters. Try adjusting your search criteria or region selection.',
  missingParams: 'Missing required query parameters',
  urlCopied: 'URL copied to clipboard',
  urlCopyFailed: 'Failed to copy URL to clipboard',
  geojsonExported: 'GeoJSON exported successfully',
  analyzing: 'Analyzing patient data... 40% complete',
  codeRequired: 'This field is required',
  icdRequired: 'At least one ICD-10 diagnosis code is required',
  zipRequired: 'ZIP code is required',
  completeFields: 'Please complete all required fields',
  emptyItemsTitle: 'No Facilities Found',
  emptyItemsText: 'There are no Facilities to display. Try adjusting your filters or search criteria.',
  viewingRegion: 'Viewing Region TX',
  exportNotReady: 'Component not ready for export',
  exportBlobFailed: 'Failed to create image blob',
  exportFailed: 'Failed to export component. Please try again.',
  exportNone: 'No components were exported',
  exportManyFailed: 'Failed to export components. Please try again.',
  exportDone: 'Component exported successfully',
  exportManyDone: 'Successfully exported 2 component(s)',
}

const ARGS: Partial<Record<keyof typeof ATLAS_MESSAGES, unknown[]>> = {
  invalidCode: ['X99!'],
  unknownState: ['ZZ'],
  unknownZip: ['00000'],
  unknownUseCase: ['other'],
  zipsAdded: [3, 1],
  fallbackNote: ['boom'],
  hospitalsError: ['boom'],
  analyzing: [40],
  emptyItemsTitle: ['Facilities'],
  emptyItemsText: ['Facilities'],
  viewingRegion: ['TX'],
  exportManyDone: [2],
}

describe('Atlas messages (spec 2 §2, §5, §6, §8; decision 0033)', () => {
  it('has a pinned row for every message', () => {
    expect(Object.keys(ATLAS_MESSAGES).sort()).toEqual(Object.keys(PINNED).sort())
  })

  for (const [key, text] of Object.entries(PINNED) as [keyof typeof ATLAS_MESSAGES, string][]) {
    it(key, () => {
      const message = ATLAS_MESSAGES[key]
      const actual = typeof message === 'function' ? (message as (...args: unknown[]) => string)(...(ARGS[key] ?? [])) : message
      expect(actual).toBe(text)
    })
  }

  it('counts added and skipped ZIP codes in the singular and plural', () => {
    expect(ATLAS_MESSAGES.zipsAdded(2, 0)).toBe('Added 2 ZIP code(s)')
    expect(ATLAS_MESSAGES.zipsAdded(1, 2)).toBe('Added 1 ZIP code(s). Skipped 2 invalid entries.')
  })
})
