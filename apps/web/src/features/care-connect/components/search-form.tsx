import { CARE_DEFAULT_RADIUS_M, type CodeOption, type SpecialtyOption } from '@citrus/contracts'
import { Button, Collapse, Group, Loader, MultiSelect, Select, Stack, TextInput, UnstyledButton, Text } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useDebouncedValue } from '@mantine/hooks'
import { IconChevronDown, IconChevronUp, IconSearch } from '@tabler/icons-react'
import { useEffect, useMemo, useState } from 'react'
import { notify } from '../../../lib/notify'
import { useInsurers } from '../../../hooks/use-insurers'
import { useCptOptions, useIcdOptions, useSpecialtyOptions } from '../api/care-api'
import { cleanZip } from '../utils/format'
import { LockedFeatures } from './locked-features'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'
import { careSearchErrors, type CareSearchValues } from '../utils/search-form'
import type { CareSearch } from '../utils/search-params'

export interface SearchSelection {
  search: CareSearch
  taxonomy: SpecialtyOption | null
  procedures: CodeOption[]
  diagnoses: CodeOption[]
}

/**
 * The care search form (spec 3 §2.1, §5): Patient ZIP, Provider Specialty (single), Insurance Carrier, and the
 * Advanced Filters with CPT and ICD-10-CM (multi). Used by /care-connect-search and the edit-search modal.
 */
export function CareSearchForm({
  initial,
  onSubmit,
  busy = false,
}: {
  initial?: Partial<CareSearch> & { taxonomy?: SpecialtyOption | null }
  onSubmit: (selection: SearchSelection) => void
  busy?: boolean
}) {
  // the form's errors are checked from the start and on every change of a checked field: a partly typed ZIP shows its
  // error at once, and Find Providers waits for a valid search
  const [start] = useState(() => {
    const values: CareSearchValues = {
      zip_code: initial?.zip_code ?? '',
      taxonomy: initial?.taxonomy ?? null,
      insurer: initial?.insurance_names_csv || null,
      cpt: initial?.cpt_union_csv ? initial.cpt_union_csv.split(',') : [],
      icd: initial?.icd10_cm_union_csv ? initial.icd10_cm_union_csv.split(',') : [],
    }
    return { values, errors: careSearchErrors(values) }
  })
  const form = useForm<CareSearchValues>({
    mode: 'controlled',
    initialValues: start.values,
    initialErrors: start.errors,
    validateInputOnChange: ['zip_code', 'taxonomy'],
    validate: careSearchErrors,
  })
  const { zip_code: zip, taxonomy, insurer, cpt, icd } = form.values
  // what is typed in the searchable lists and whether the advanced filters are open: the screen's state, not the search's
  const [specialtyQuery, setSpecialtyQuery] = useState('')
  const [focused, setFocused] = useState(false)
  const [advanced, setAdvanced] = useState(Boolean(initial?.cpt_union_csv || initial?.icd10_cm_union_csv))
  const [cptQuery, setCptQuery] = useState('')
  const [icdQuery, setIcdQuery] = useState('')
  const [debouncedSpecialty] = useDebouncedValue(specialtyQuery, 200)
  const [debouncedCpt] = useDebouncedValue(cptQuery, 200)
  const [debouncedIcd] = useDebouncedValue(icdQuery, 200)

  const insurers = useInsurers({ staleTime: 60 * 60_000 })
  // the specialty list asks for 100 items with an empty query on focus (spec 3 §5)
  const specialties = useSpecialtyOptions(debouncedSpecialty, focused || debouncedSpecialty !== '')
  const cptOptions = useCptOptions(debouncedCpt)
  const icdOptions = useIcdOptions(debouncedIcd)
  const [known, setKnown] = useState<Record<string, CodeOption>>({})

  useEffect(() => {
    if (insurers.isError) notify({ severity: 'error', message: CARE_MESSAGES_UI.insurersFailed })
  }, [insurers.isError])
  const remember = (options: CodeOption[] | undefined) => {
    if (options?.length) setKnown((current) => ({ ...current, ...Object.fromEntries(options.map((c) => [c.code, c])) }))
  }

  // the chosen specialty stays an option while the list is filtered
  const specialtyData = useMemo(() => {
    const list = specialties.data?.suggestions ?? []
    const all = taxonomy && !list.some((s) => s.code === taxonomy.code) ? [taxonomy, ...list] : list
    return all.map((s) => ({ value: s.code, label: `${s.description} (${s.code})` }))
  }, [specialties.data, taxonomy])
  const codeData = (options: CodeOption[] | undefined, chosen: string[]) => {
    const values = new Map<string, string>()
    for (const code of chosen) values.set(code, known[code] ? `${code} ${known[code].description}` : code)
    for (const option of options ?? []) values.set(option.code, `${option.code} ${option.description}`)
    return [...values].map(([value, label]) => ({ value, label }))
  }

  const disabled = insurers.isLoading || Object.keys(form.errors).length > 0

  const submit = form.onSubmit(
    (values) => {
      if (!values.taxonomy) return
      onSubmit({
        search: {
          zip_code: values.zip_code,
          omni_code: values.taxonomy.code,
          omni_genre: values.taxonomy.genre,
          cpt_union_csv: values.cpt.join(','),
          icd10_cm_union_csv: values.icd.join(','),
          insurance_names_csv: values.insurer ?? '',
          radius_in_m: initial?.radius_in_m ?? CARE_DEFAULT_RADIUS_M,
          filter_npis: '',
        },
        taxonomy: values.taxonomy,
        procedures: values.cpt.map((code) => known[code] ?? { code, description: code, long_description: code, parent_code: null }),
        diagnoses: values.icd.map((code) => known[code] ?? { code, description: code, long_description: code, parent_code: null }),
      })
    },
    () => notify({ severity: 'error', message: CARE_MESSAGES_UI.zipOrTaxonomy }),
  )

  return (
    <form onSubmit={submit}>
      <Stack gap="md">
        <TextInput
          id="care-zip"
          data-tour="zip"
          label={CARE_TEXT.zipLabel}
          placeholder="e.g. 98101"
          value={zip}
          inputMode="numeric"
          error={zip !== '' ? form.errors.zip_code : undefined}
          onChange={(event) => form.setFieldValue('zip_code', cleanZip(event.currentTarget.value))}
        />
        <Select
          id="care-specialty"
          data-tour="taxonomy"
          label={CARE_TEXT.specialtyLabel}
          placeholder="Search specialties"
          searchable
          clearable
          data={specialtyData}
          value={taxonomy?.code ?? null}
          searchValue={specialtyQuery}
          onSearchChange={setSpecialtyQuery}
          onFocus={() => setFocused(true)}
          filter={({ options }) => options}
          nothingFoundMessage={specialties.isFetching ? 'Loading...' : 'No specialties found'}
          onChange={(code) => {
            const option = specialties.data?.suggestions.find((s) => s.code === code) ?? (taxonomy?.code === code ? taxonomy : null)
            form.setFieldValue('taxonomy', option ?? null)
          }}
        />
        <Select
          id="care-insurance"
          data-tour="insurance"
          label={CARE_TEXT.insuranceLabel}
          placeholder={insurers.isLoading ? 'Loading insurers...' : 'Any carrier'}
          searchable
          clearable
          data={insurers.data?.insurers ?? []}
          value={insurer}
          onChange={(value) => form.setFieldValue('insurer', value)}
        />
        <UnstyledButton data-tour="advanced" onClick={() => setAdvanced((open) => !open)} aria-expanded={advanced}>
          <Group gap={4}>
            <Text fw={600} size="sm">
              {CARE_TEXT.advancedFilters}
            </Text>
            {advanced ? <IconChevronUp size={16} /> : <IconChevronDown size={16} />}
          </Group>
        </UnstyledButton>
        <Collapse expanded={advanced}>
          <Stack gap="sm">
            <MultiSelect
              label={CARE_TEXT.cptLabel}
              placeholder="Search CPT codes"
              searchable
              data={codeData(cptOptions.data?.codes, cpt)}
              value={cpt}
              onChange={(values) => {
                remember(cptOptions.data?.codes)
                form.setFieldValue('cpt', values)
              }}
              searchValue={cptQuery}
              onSearchChange={setCptQuery}
              filter={({ options }) => options}
            />
            <MultiSelect
              label={CARE_TEXT.icdLabel}
              placeholder="Search ICD-10-CM codes"
              searchable
              data={codeData(icdOptions.data?.codes, icd)}
              value={icd}
              onChange={(values) => {
                remember(icdOptions.data?.codes)
                form.setFieldValue('icd', values)
              }}
              searchValue={icdQuery}
              onSearchChange={setIcdQuery}
              filter={({ options }) => options}
            />
            <LockedFeatures />
          </Stack>
        </Collapse>
        {/* not Mantine's `loading`: its overlay hides the label, and the label is what says the search is running */}
        <Button
          type="submit"
          leftSection={busy ? <Loader size={16} /> : <IconSearch size={18} />}
          disabled={disabled || busy}
          aria-busy={busy}
        >
          {busy ? CARE_TEXT.finding : CARE_TEXT.find}
        </Button>
      </Stack>
    </form>
  )
}
