import { endpoints } from '@citrus/contracts'
import { MultiSelect } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useState } from 'react'
import { useApiQuery } from '../../../hooks/use-api'
import type { Condition } from '../utils/search-params'

/** Conditions by ICD-10-CM code or name (GET /typeahead/icd10-fuzzy, debounced 300 ms; spec 2 §5). */
export function ConditionPicker({
  value,
  onChange,
  error,
  label = 'Conditions',
}: {
  value: Condition[]
  onChange: (conditions: Condition[]) => void
  error?: string | null
  label?: string
}) {
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 300)
  const found = useApiQuery(endpoints.typeahead.icd10, { query: { query: debounced, limit: 20 } }, { enabled: debounced.length > 0 })
  const known = new Map(value.map((c) => [c.code, c]))
  for (const option of found.data?.codes ?? []) {
    if (!known.has(option.code))
      known.set(option.code, { code: option.code, description: option.description, title: `${option.code} ${option.description}` })
  }
  return (
    <MultiSelect
      label={label}
      placeholder="Search ICD-10 code or condition"
      searchable
      clearable
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      data={[...known.values()].map((c) => ({ value: c.code, label: c.title }))}
      value={value.map((c) => c.code)}
      onChange={(codes) => onChange(codes.map((code) => known.get(code)!).filter(Boolean))}
      error={error}
      nothingFoundMessage={debounced.length > 0 && !found.isFetching ? 'No conditions found' : undefined}
      data-testid="condition-picker"
    />
  )
}
