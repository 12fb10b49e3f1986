import { priceCheckFormSchema } from '@citrus/contracts'
import { Anchor, Button, Group, Select, Stack, TextInput } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { IconPlus, IconX } from '@tabler/icons-react'
import { useState } from 'react'
import { useInsurers } from '../../../hooks/use-insurers'
import { PRICE_CHECK_MESSAGES, type ChosenProcedure } from '../utils/price-check'
import { ProcedureTypeahead } from './procedure-typeahead'

export interface PriceCheckSearch {
  zip: string
  insurance: string | null
  procedure: ChosenProcedure | null
}

/**
 * The Price Check form (spec 3 §2.6, §5): ZIP, procedure, optional insurance, on @mantine/form and checked with the
 * contract's priceCheckFormSchema on submit ('Please enter a valid 5-digit ZIP code', 'Please select a procedure').
 * Changing a field clears that field's error. The insurance area starts collapsed as an optional prompt and expands to
 * a selector; Remove clears it. Every change is reported (the page mirrors the form in the address bar); `onCancel`
 * adds the dialog's Cancel button (compact layout).
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
  const form = useForm<PriceCheckSearch>({
    mode: 'controlled',
    initialValues: value,
    validate: schemaResolver(priceCheckFormSchema, { sync: true }),
    onValuesChange: onChange,
  })
  const [insuranceOpen, setInsuranceOpen] = useState(value.insurance !== null)
  const insurers = useInsurers({ enabled: insuranceOpen })

  const submit = form.onSubmit((values) => {
    if (values.procedure) onSearch({ ...values, zip: values.zip.trim(), procedure: values.procedure })
  })

  return (
    <form onSubmit={submit} noValidate aria-label="Price Check search">
      <Stack gap="md">
        <TextInput label="ZIP code" placeholder="e.g. 10001" inputMode="numeric" maxLength={10} {...form.getInputProps('zip')} />
        <ProcedureTypeahead
          value={form.values.procedure}
          error={form.errors.procedure}
          onChange={(procedure) => form.setFieldValue('procedure', procedure)}
          // any edit of the text clears the procedure error, not only one that drops a chosen procedure (spec 3 §2.6)
          onTextChange={() => form.clearFieldError('procedure')}
        />
        {insuranceOpen ? (
          <Group align="flex-end" gap="xs" wrap="nowrap">
            <Select
              style={{ flex: 1 }}
              label="Insurance"
              placeholder={insurers.isPending ? 'Loading insurers…' : 'Choose your insurance carrier'}
              searchable
              data={insurers.data?.insurers ?? []}
              value={form.values.insurance}
              error={insurers.isError ? PRICE_CHECK_MESSAGES.insurersFailed : undefined}
              onChange={(insurance) => form.setFieldValue('insurance', insurance)}
              comboboxProps={{ withinPortal: true }}
            />
            <Button
              variant="subtle"
              color="gray"
              leftSection={<IconX size={14} />}
              onClick={() => {
                setInsuranceOpen(false)
                form.setFieldValue('insurance', null)
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
