import { ATLAS_MESSAGES, GENERIC_LAST_QUERY_STORAGE_KEY } from '@citrus/contracts'
import { Button, Container, Group, Paper, RangeSlider, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { ConditionPicker } from '../components/condition-picker'
import { writeAtlasQuery, type Condition } from '../utils/search-params'

const AGE_MARKS = [0, 18, 45, 65, 100].map((value) => ({ value, label: String(value) }))

/** /atlas/generic: codes, United States or a ZIP code, demographics (spec 2 §2, §5, §9). */
export function AtlasGenericRoute() {
  const navigate = useNavigate()
  const [conditions, setConditions] = useState<Condition[]>([])
  const [region, setRegion] = useState<'us' | 'zip'>('us')
  const [zip, setZip] = useState('')
  const [showFilters, setShowFilters] = useState(false)
  const [gender, setGender] = useState<'all' | 'M' | 'F'>('all')
  const [ages, setAges] = useState<[number, number]>([0, 70])
  const [attempted, setAttempted] = useState(false)

  const codeError = conditions.length === 0 ? ATLAS_MESSAGES.codeRequired : null
  const zipError =
    region === 'zip'
      ? zip.trim() === ''
        ? ATLAS_MESSAGES.zipRequired
        : /^\d{5}$/.test(zip.trim())
          ? null
          : ATLAS_MESSAGES.invalidZip
      : null
  const valid = !codeError && !zipError

  const submit = () => {
    setAttempted(true)
    if (!valid) return
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
          <ConditionPicker label="Diagnosis codes" value={conditions} onChange={setConditions} error={attempted ? codeError : null} />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Region
            </Text>
            <SegmentedControl
              value={region}
              onChange={(v) => {
                setRegion(v as 'us' | 'zip')
                setZip('')
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
              onChange={(e) => setZip(e.currentTarget.value)}
              error={attempted ? zipError : null}
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
                onChange={(v) => setGender(v as 'all' | 'M' | 'F')}
                data={[
                  { value: 'all', label: 'All' },
                  { value: 'M', label: 'M' },
                  { value: 'F', label: 'F' },
                ]}
              />
              <Stack gap={4} pb="lg">
                <Text size="sm">Age</Text>
                <RangeSlider min={0} max={100} value={ages} onChange={setAges} marks={AGE_MARKS} />
              </Stack>
            </Stack>
          )}
          {attempted && !valid && (
            <Text c="red" size="sm">
              {ATLAS_MESSAGES.completeFields}
            </Text>
          )}
          <Button onClick={submit} disabled={attempted && !valid}>
            Search
          </Button>
        </Stack>
      </Paper>
    </Container>
  )
}
