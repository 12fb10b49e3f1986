import { NOVA_MAP_TYPES, type NovaMetadata } from '@citrus/contracts'

type Option = { code: string; name: string }

/** A GET /nova/v1/metadata/ answer for the client's tests: every map type, the CroFab score first, the given levels. */
export function novaMetadata(o: { regionLevels: Option[]; granularityOptions: Option[] }): NovaMetadata {
  return {
    atlas_metadata: {
      map_metadata: {
        map_options: NOVA_MAP_TYPES.map((t) => ({ code: t.code, name: t.name, description: t.name, value_format: 'INTEGER' as const })),
        default_map_option: 'serb_crofab_opportunity_score',
        region_levels: o.regionLevels,
        granularity_options: o.granularityOptions,
        point_options: [],
        data_years: { first_year: 2021, latest_year: 2025 },
      },
    },
    insights_metadata: {
      sort_options: [],
      default_sort: 'snake_envenominations',
      default_sort_direction: 'DESC',
      account_query_types: [],
      metric_groups: [],
      quick_filters: [],
    },
  }
}
