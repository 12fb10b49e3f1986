import { ATLAS_MESSAGES, GENERIC_LAST_QUERY_STORAGE_KEY, atlasGenericFormSchema } from '@citrus/contracts'
import { Button, Container, Group, Paper, RangeSlider, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core'
import { schemaResolver, useForm, type FormErrors } from '@mantine/form'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { ConditionPicker } from '../components/condition-picker'
import { writeAtlasQuery, type Condition } from '../utils/search-params'

interface GenericSearchValues {
  conditions: Condition[]
  region: 'us' | 'zip'
  zip: string
  gender: 'all' | 'M' | 'F'
  ages: [number, number]
}

const resolveGenericSearch = schemaResolver(atlasGenericFormSchema, { sync: true })
/** The form's errors by the contract's atlasGenericFormSchema, the codes' error on the condition picker. */
function genericSearchErrors(values: GenericSearchValues): FormErrors {
  const { codes, ...rest } = resolveGenericSearch({ codes: values.conditions.map((c) => c.code), region: values.region, zip: values.zip })
  return codes ? { ...rest, conditions: codes } : rest
}

const AGE_MARKS = [0, 18, 45, 65, 100].map((value) => ({ value, label: String(value) }))

/** /atlas/generic: codes, United States or a ZIP code, demographics (spec 2 §2, §5, §9). */
export function AtlasGenericRoute() {
  const navigate = useNavigate()
  const form = useForm<GenericSearchValues>({
    mode: 'controlled',
    initialValues: { conditions: [], region: 'us', zip: '', gender: 'all', ages: [0, 70] },
    validate: genericSearchErrors,
  })
  const { conditions, region, zip, gender, ages } = form.values
  const [showFilters, setShowFilters] = useState(false)
  // the form's errors show once Search was pressed, then follow every change; another region starts over (@mantine/form
  // 9 keeps no submit count, hence `attempted`)
  const [attempted, setAttempted] = useState(false)
  const change = (values: Partial<GenericSearchValues>) => {
    form.setValues(values)
    if (attempted) form.validate()
  }
  const invalid = attempted && Object.keys(form.errors).length > 0

  const submit = form.onSubmit(
    () => search(),
    () => setAttempted(true),
  )
  const search = () => {
    setAttempted(true)
    const query = writeAtlasQuery({
      codes: conditions.map((c) => c.code),
      tile_granularity: region === 'us' ? 'STATE' : 'ZIP_CODE_50KM',
      search_within_region: region === 'us' ? 'US' : zip.trim(),
      search_within_region_type: region === 'us' ? 'COUNTRY' : 'ZIP_CODE_50KM',
      // census data: off for the United States, on for ZIP searches (spec 2 §9)
      include_census_data: region === 'zip',
      include_hco_points: false,
      _bypass_cache: false,
      gender: gender === 'all' ? null : gender,
      min_age: ages[0] > 0 ? ages[0] : null,
      max_age: ages[1] < 100 ? ages[1] : null,
    })
    query.set('tab', 'overview')
    try {
      localStorage.setItem(GENERIC_LAST_QUERY_STORAGE_KEY, query.toString())
    } catch {
      // storage unavailable: the URL still carries the query
    }
    void navigate(`/atlas/generic/results?${query.toString()}`)
  }

  return (
    <Container size="sm" py="lg">
      <Paper withBorder radius="lg" p="lg">
        <Stack gap="md">
          <Title order={2}>Generic Atlas</Title>
          <ConditionPicker
            label="Diagnosis codes"
            value={conditions}
            onChange={(next) => change({ conditions: next })}
            error={form.errors.conditions as string | undefined}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Region
            </Text>
            <SegmentedControl
              value={region}
              onChange={(v) => {
                form.setValues({ region: v as 'us' | 'zip', zip: '' })
                setAttempted(false)
              }}
              data={[
                { value: 'us', label: 'United States' },
                { value: 'zip', label: 'ZIP code' },
              ]}
            />
          </Stack>
          {region === 'zip' && (
            <TextInput
              label="ZIP code"
              value={zip}
              onChange={(e) => change({ zip: e.currentTarget.value })}
              error={form.errors.zip}
              maxLength={5}
            />
          )}
          <Group>
            <Button variant="subtle" onClick={() => setShowFilters((s) => !s)}>
              {showFilters ? 'Hide Filters' : 'Add Filters'}
            </Button>
          </Group>
          {showFilters && (
            <Stack gap="md">
              <SegmentedControl
                value={gender}
                onChange={(v) => change({ gender: v as 'all' | 'M' | 'F' })}
                data={[
                  { value: 'all', label: 'All' },
                  { value: 'M', label: 'M' },
                  { value: 'F', label: 'F' },
                ]}
              />
              <Stack gap={4} pb="lg">
                <Text size="sm">Age</Text>
                <RangeSlider min={0} max={100} value={ages} onChange={(next) => change({ ages: next })} marks={AGE_MARKS} />
              </Stack>
            </Stack>
          )}
          {invalid && (
            <Text c="red" size="sm">
              {ATLAS_MESSAGES.completeFields}
            </Text>
          )}
          <Button onClick={() => submit()} disabled={invalid}>
            Search
          </Button>
        </Stack>
      </Paper>
    </Container>
  )
}
