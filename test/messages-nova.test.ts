import { NOVA_MESSAGES } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import {
  buildAccountsRequest,
  buildHcpsRequest,
  buildTilesRequest,
  DEFAULT_NOVA_FILTERS,
  NovaRequestError,
} from '../apps/web/src/features/nova/utils/filters.ts'
import { NOVA_CLIENT_MESSAGES } from '../apps/web/src/features/nova/utils/messages.ts'

/*
 * Nova's documented messages, pinned as literal text (spec 2 §2, §4, §5, §8), and ours where the specification
 * leaves them to the server or the screen. The expected strings are written here, never read from the
 * constants under test; a message object that gains a key without a row fails the completeness check.
 */

type Row = readonly [name: string, actual: unknown, expected: string, source: string]
const S2_2 = 'spec 2 §2'
const S2_4 = 'spec 2 §4'
const S2_5 = 'spec 2 §5'
const S2_8 = 'spec 2 §8'
const OURS = 'ours (not given by the specification)'

const rows: Row[] = [
  ['NOVA_MESSAGES.scopeRequired', NOVA_MESSAGES.scopeRequired, 'Geographic scope is required', S2_5],
  ['NOVA_MESSAGES.granularityRequired', NOVA_MESSAGES.granularityRequired, 'Territory granularity is required', S2_5],
  ['NOVA_MESSAGES.mapTypeRequired', NOVA_MESSAGES.mapTypeRequired, 'Map visualization type is required', S2_5],
  ['NOVA_MESSAGES.useCaseRequired', NOVA_MESSAGES.useCaseRequired, 'Nova use case is required', S2_5],
  ['NOVA_MESSAGES.stateRequiredScope', NOVA_MESSAGES.stateRequiredScope, 'State selection is required for state-level scope', S2_5],
  [
    'NOVA_MESSAGES.stateRequiredInsights',
    NOVA_MESSAGES.stateRequiredInsights,
    'State selection is required for state-level insights',
    S2_5,
  ],
  ['NOVA_MESSAGES.hcpNpiMissing', NOVA_MESSAGES.hcpNpiMissing, 'Missing HCP NPI', S2_5],
  ['NOVA_MESSAGES.scopeMissing', NOVA_MESSAGES.scopeMissing, 'Missing scope', S2_5],
  [
    'NOVA_MESSAGES.territoryRequired',
    NOVA_MESSAGES.territoryRequired,
    'Sales territory selection is required for territory-level scope',
    OURS,
  ],
  ['NOVA_MESSAGES.unknownState', NOVA_MESSAGES.unknownState('ZZ'), 'Unknown state: ZZ', OURS],
  ['NOVA_MESSAGES.unknownTerritory', NOVA_MESSAGES.unknownTerritory('Atlantis'), 'Unknown sales territory: Atlantis', OURS],
  ['NOVA_MESSAGES.unknownUseCase', NOVA_MESSAGES.unknownUseCase, 'Unknown Nova use case', OURS],
  ['NOVA_MESSAGES.unknownMapType', NOVA_MESSAGES.unknownMapType, 'Unknown map visualization type', OURS],
  ['NOVA_MESSAGES.facilityNotFound', NOVA_MESSAGES.facilityNotFound('1234567893'), 'No facility with NPI 1234567893', OURS],
  ['NOVA_MESSAGES.healthSystemNotFound', NOVA_MESSAGES.healthSystemNotFound('HS1'), 'No health system with id HS1', OURS],

  ['NOVA_CLIENT_MESSAGES.loadingFilters', NOVA_CLIENT_MESSAGES.loadingFilters, 'Loading filters...', S2_2],
  ['NOVA_CLIENT_MESSAGES.expandSidebar', NOVA_CLIENT_MESSAGES.expandSidebar, 'Expand sidebar', S2_2],
  ['NOVA_CLIENT_MESSAGES.collapseSidebar', NOVA_CLIENT_MESSAGES.collapseSidebar, 'Collapse sidebar', S2_2],
  ['NOVA_CLIENT_MESSAGES.exploreHealthSystems', NOVA_CLIENT_MESSAGES.exploreHealthSystems, 'Explore Health Systems', S2_2],
  [
    'NOVA_CLIENT_MESSAGES.exploreHealthSystemsHint',
    NOVA_CLIENT_MESSAGES.exploreHealthSystemsHint,
    'Pick a health system or an independent facility in the list to see its hospitals, prescribers and antivenom metrics.',
    OURS,
  ],
  ['NOVA_CLIENT_MESSAGES.noHealthSystemSelected', NOVA_CLIENT_MESSAGES.noHealthSystemSelected, 'No Health System Selected', S2_2],
  ['NOVA_CLIENT_MESSAGES.noHospitalSelected', NOVA_CLIENT_MESSAGES.noHospitalSelected, 'No Hospital Selected', S2_2],
  ['NOVA_CLIENT_MESSAGES.noProviderSelected', NOVA_CLIENT_MESSAGES.noProviderSelected, 'No Provider Selected', S2_2],
  ['NOVA_CLIENT_MESSAGES.noMetrics', NOVA_CLIENT_MESSAGES.noMetrics, 'No Metrics Available', S2_2],
  ['NOVA_CLIENT_MESSAGES.noCategoryData', NOVA_CLIENT_MESSAGES.noCategoryData('Sales'), 'No Sales Data', S2_2],
  [
    'NOVA_CLIENT_MESSAGES.noProviderMetrics',
    NOVA_CLIENT_MESSAGES.noProviderMetrics,
    'No detailed metrics available for this provider',
    S2_2,
  ],
  ['NOVA_CLIENT_MESSAGES.noTopHcps', NOVA_CLIENT_MESSAGES.noTopHcps, 'No Top HCP Data Available', S2_2],
  ['NOVA_CLIENT_MESSAGES.noProviders', NOVA_CLIENT_MESSAGES.noProviders, 'No providers available for this selection', S2_2],
  ['NOVA_CLIENT_MESSAGES.fetchingMap', NOVA_CLIENT_MESSAGES.fetchingMap, 'Fetching map data...', S2_2],
  ['NOVA_CLIENT_MESSAGES.mapError', NOVA_CLIENT_MESSAGES.mapError('Network Error'), 'Error loading map data: Network Error', S2_8],
  ['NOVA_CLIENT_MESSAGES.viewingRegion', NOVA_CLIENT_MESSAGES.viewingRegion('TX'), 'Viewing Region TX', S2_4],
  ['NOVA_CLIENT_MESSAGES.facilityFailed', NOVA_CLIENT_MESSAGES.facilityFailed, 'Failed to load facility details', S2_8],
  ['NOVA_CLIENT_MESSAGES.saveToHub', NOVA_CLIENT_MESSAGES.saveToHub, 'Save to AI Hub', 'issue 14 (Save to AI Hub on the panels)'],
  ['NOVA_CLIENT_MESSAGES.savedToHub', NOVA_CLIENT_MESSAGES.savedToHub, 'Saved to AI Hub', OURS],
  ['NOVA_CLIENT_MESSAGES.moreEntries', NOVA_CLIENT_MESSAGES.moreEntries(3), '+3 more', S2_2],
  ['NOVA_CLIENT_MESSAGES.searchTitle', NOVA_CLIENT_MESSAGES.searchTitle, 'Nova Territory Intelligence', OURS],
  [
    'NOVA_CLIENT_MESSAGES.searchDescription',
    NOVA_CLIENT_MESSAGES.searchDescription,
    'Antivenom market intelligence: envenomation cases, CroFab and Anavip usage and buying, and top prescribers by territory.',
    OURS,
  ],
]

const messageObjects: Record<string, Record<string, unknown>> = { NOVA_MESSAGES, NOVA_CLIENT_MESSAGES }

describe('Nova messages', () => {
  it.each(rows)('%s is the documented text (%#)', (_name, actual, expected) => {
    expect(actual).toBe(expected)
  })

  it('every key of every Nova message object is pinned above', () => {
    const pinned = new Set(rows.map(([name]) => name))
    const unpinned = Object.entries(messageObjects).flatMap(([object, messages]) =>
      Object.keys(messages)
        .map((key) => `${object}.${key}`)
        .filter((name) => !pinned.has(name)),
    )
    expect(unpinned).toEqual([])
  })

  it('building an invalid request raises an error listing the messages (spec 2 §5)', () => {
    const errorOf = (build: () => unknown) => {
      try {
        build()
      } catch (error) {
        expect(error).toBeInstanceOf(NovaRequestError)
        return (error as NovaRequestError).messages
      }
      throw new Error('no error')
    }
    expect(
      errorOf(() =>
        buildTilesRequest({
          ...DEFAULT_NOVA_FILTERS,
          selectedRegionLevel: '',
          selectedGranularity: '',
          selectedMapType: '',
          novaUseCase: '',
        }),
      ),
    ).toEqual([
      'Geographic scope is required',
      'Territory granularity is required',
      'Map visualization type is required',
      'Nova use case is required',
    ])
    expect(errorOf(() => buildTilesRequest({ ...DEFAULT_NOVA_FILTERS, selectedRegionLevel: 'STATE' }))).toEqual([
      'State selection is required for state-level scope',
    ])
    expect(errorOf(() => buildAccountsRequest({ ...DEFAULT_NOVA_FILTERS, selectedRegionLevel: 'STATE' }))).toEqual([
      'State selection is required for state-level insights',
    ])
    expect(errorOf(() => buildHcpsRequest({ ...DEFAULT_NOVA_FILTERS, selectedRegionLevel: '' }))).toEqual([
      'Missing HCP NPI',
      'Missing scope',
    ])
  })
})
