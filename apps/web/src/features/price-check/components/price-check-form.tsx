import { Anchor, Button, Group, Select, Stack, TextInput } from '@mantine/core'
import { IconPlus, IconX } from '@tabler/icons-react'
import { useState, type FormEvent } from 'react'
import { useInsurers } from '../../../hooks/use-insurers'
import { PRICE_CHECK_MESSAGES, procedureError, zipError, type ChosenProcedure } from '../utils/price-check'
import { ProcedureTypeahead } from './procedure-typeahead'

export interface PriceCheckSearch {
  zip: string
  insurance: string | null
  procedure: ChosenProcedure | null
}

type Errors = Partial<Record<'zip' | 'procedure', string>>

/**
 * The Price Check form (spec 3 §2.6, §5): ZIP, procedure, optional insurance. The insurance area starts
 * collapsed as an optional prompt and expands to a selector; Remove clears it. Changing a field clears
 * that field's error. `onCancel` adds the dialog's Cancel button (compact layout).
 */
export function PriceCheckForm({
  value,
  onChange,
  onSearch,
  onCancel,
}: {
  value: PriceCheckSearch
  onChange: (next: PriceCheckSearch) => void
  onSearch: (search: PriceCheckSearch & { procedure: ChosenProcedure }) => void
  onCancel?: () => void
}) {
  const [errors, setErrors] = useState<Errors>({})
  const [insuranceOpen, setInsuranceOpen] = useState(value.insurance !== null)
  const insurers = useInsurers({ enabled: insuranceOpen })

  const clearError = (field: keyof Errors) => {
    if (errors[field]) setErrors((current) => ({ ...current, [field]: undefined }))
  }
  const update = (patch: Partial<PriceCheckSearch>, clears: keyof Errors | null) => {
    onChange({ ...value, ...patch })
    if (clears) clearError(clears)
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const next: Errors = {}
    const zip = zipError(value.zip)
    const procedure = procedureError(value.procedure)
    if (zip) next.zip = zip
    if (procedure) next.procedure = procedure
    setErrors(next)
    if (zip || procedure || !value.procedure) return
    onSearch({ ...value, zip: value.zip.trim(), procedure: value.procedure })
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Price Check search">
      <Stack gap="md">
        <TextInput
          label="ZIP code"
          placeholder="e.g. 10001"
          inputMode="numeric"
          maxLength={10}
          value={value.zip}
          error={errors.zip}
          onChange={(event) => update({ zip: event.currentTarget.value }, 'zip')}
        />
        <ProcedureTypeahead
          value={value.procedure}
          error={errors.procedure}
          onChange={(procedure) => update({ procedure }, 'procedure')}
          // any edit of the text clears the procedure error, not only one that drops a chosen procedure (spec 3 §2.6)
          onTextChange={() => clearError('procedure')}
        />
        {insuranceOpen ? (
          <Group align="flex-end" gap="xs" wrap="nowrap">
            <Select
              style={{ flex: 1 }}
              label="Insurance"
              placeholder={insurers.isPending ? 'Loading insurers…' : 'Choose your insurance carrier'}
              searchable
              data={insurers.data?.insurers ?? []}
              value={value.insurance}
              error={insurers.isError ? PRICE_CHECK_MESSAGES.insurersFailed : undefined}
              onChange={(insurance) => update({ insurance }, null)}
              comboboxProps={{ withinPortal: true }}
            />
            <Button
              variant="subtle"
              color="gray"
              leftSection={<IconX size={14} />}
              onClick={() => {
                setInsuranceOpen(false)
                update({ insurance: null }, null)
              }}
            >
              Remove
            </Button>
          </Group>
        ) : (
          <Anchor component="button" type="button" size="sm" onClick={() => setInsuranceOpen(true)}>
            <Group gap={4}>
              <IconPlus size={14} /> Add insurance (optional)
            </Group>
          </Anchor>
        )}
        <Group justify="flex-end">
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit">Search</Button>
        </Group>
      </Stack>
    </form>
  )
}
