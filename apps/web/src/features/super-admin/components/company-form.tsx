import { PLAN_TIERS, PLAN_TIER_NAMES, PRODUCT_GROUPS, PRODUCT_NAMES, type PlanTier, type ProductGroup } from '@citrus/contracts'
import { ActionIcon, Button, Checkbox, Code, Group, NativeSelect, NumberInput, Paper, Stack, Text, TextInput, Tooltip } from '@mantine/core'
import { useForm } from '@mantine/form'
import { IconPlus, IconTrash } from '@tabler/icons-react'
import { FormErrorAlert } from '../../../components/feedback/form-error-alert'
import {
  addPolicy,
  canAddPolicy,
  canRemovePolicy,
  groupsTakenByOthers,
  removePolicy,
  updatePolicy,
  type Checked,
  type CompanyDraft,
  type PolicyDraft,
} from '../utils/company-form'

const numberOrBlank = (value: number | string): number | '' => (typeof value === 'number' && Number.isFinite(value) ? value : '')

function PolicyRow({
  policy,
  index,
  policies,
  onChange,
  onRemove,
}: {
  policy: PolicyDraft
  index: number
  policies: readonly PolicyDraft[]
  onChange: (change: Partial<Omit<PolicyDraft, 'key'>>) => void
  onRemove: () => void
}) {
  const taken = groupsTakenByOthers(policies, policy.key)
  const n = index + 1
  return (
    <Group gap="sm" align="flex-end" wrap="nowrap" data-testid="policy-row">
      <NativeSelect
        flex={1}
        label={`Product group ${n}`}
        required
        value={policy.product_group ?? ''}
        onChange={(event) => onChange({ product_group: (event.currentTarget.value || null) as ProductGroup | null })}
        data={[
          { value: '', label: 'Select a product group' },
          ...PRODUCT_GROUPS.map((group) => ({ value: group, label: `${group} (${PRODUCT_NAMES[group]})`, disabled: taken.has(group) })),
        ]}
      />
      <NumberInput
        w={170}
        label={`Limit ${n}`}
        placeholder="No limit"
        min={0}
        allowDecimal={false}
        allowNegative={false}
        value={policy.limit}
        onChange={(value) => onChange({ limit: numberOrBlank(value) })}
      />
      <Tooltip label={canRemovePolicy(policies) ? 'Remove policy' : 'A company needs at least one policy'} withArrow>
        <ActionIcon
          variant="subtle"
          color="red"
          size="lg"
          mb={4}
          aria-label={`Remove policy ${n}`}
          disabled={!canRemovePolicy(policies)}
          onClick={onRemove}
        >
          <IconTrash size={18} />
        </ActionIcon>
      </Tooltip>
    </Group>
  )
}

/** The key of the form's one message (spec 1 §5: one message for the whole form, not one per field). */
const FORM_ERROR = 'form'

export interface CompanyFormProps<T> {
  mode: 'create' | 'edit'
  initial: CompanyDraft
  /** edit only: the current key, shown with the 'Reset Activation Key' option */
  activationKey?: string | null
  submitting: boolean
  /** the request of a draft, checked with the contract's request schema, or the form's message */
  check: (draft: CompanyDraft, resetActivationKey: boolean) => Checked<T>
  /** called with the checked request only */
  onSubmit: (request: T) => void
  onCancel: () => void
}

/**
 * The create and edit company form (spec 1 §4, §5) on @mantine/form: its validation is `check` (the contract's
 * create or update request schema), shown as one message above the fields until the next submit.
 */
export function CompanyForm<T>({ mode, initial, activationKey, submitting, check, onSubmit, onCancel }: CompanyFormProps<T>) {
  const form = useForm<CompanyDraft & { reset_activation_key: boolean }>({
    mode: 'controlled',
    initialValues: { ...initial, reset_activation_key: false },
    validate: ({ reset_activation_key, ...draft }) => {
      const checked = check(draft, reset_activation_key)
      return checked.ok ? {} : { [FORM_ERROR]: checked.message }
    },
  })
  const draft = form.values
  const error = form.errors[FORM_ERROR]
  const setPolicies = (update: (policies: PolicyDraft[]) => PolicyDraft[]) => form.setFieldValue('policies', update)
  const submit = form.onSubmit(({ reset_activation_key, ...values }) => {
    const checked = check(values, reset_activation_key)
    if (checked.ok) onSubmit(checked.value)
  })

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        {error && <FormErrorAlert>{error}</FormErrorAlert>}
        <TextInput label="Company Name" required {...form.getInputProps('company_name')} data-autofocus />
        <Group grow align="flex-start">
          <TextInput label="Industry" required {...form.getInputProps('industry')} />
          <NumberInput
            label="Renewal Cycle (days)"
            required
            placeholder="e.g. 30"
            min={1}
            allowDecimal={false}
            allowNegative={false}
            value={draft.renewal_cycle_days}
            onChange={(value) => form.setFieldValue('renewal_cycle_days', numberOrBlank(value))}
          />
        </Group>
        <NativeSelect
          label="Plan Tier"
          description="What Atlas unlocks: custom ZIPs (Business), facility lists and CSV export (Business+), scores (Enterprise)"
          value={draft.plan_tier}
          onChange={(event) => form.setFieldValue('plan_tier', event.currentTarget.value as PlanTier)}
          data={PLAN_TIERS.map((tier) => ({ value: tier, label: PLAN_TIER_NAMES[tier] }))}
        />
        <Paper withBorder radius="md" p="sm">
          <Group justify="space-between" mb="xs">
            <Text fw={600} size="sm">
              Policies
            </Text>
            <Button
              size="xs"
              variant="light"
              leftSection={<IconPlus size={14} />}
              disabled={!canAddPolicy(draft.policies)}
              onClick={() => setPolicies(addPolicy)}
            >
              Add Policy
            </Button>
          </Group>
          <Text size="xs" c="dimmed" mb="xs">
            A limit is the number of credits per renewal cycle; leave it empty for unlimited.
          </Text>
          <Stack gap="sm">
            {draft.policies.map((policy, index) => (
              <PolicyRow
                key={policy.key}
                policy={policy}
                index={index}
                policies={draft.policies}
                onChange={(change) => setPolicies((policies) => updatePolicy(policies, policy.key, change))}
                onRemove={() => setPolicies((policies) => removePolicy(policies, policy.key))}
              />
            ))}
          </Stack>
        </Paper>
        {mode === 'edit' && (
          <Stack gap={6}>
            <Text size="sm" fw={500}>
              Activation Key
            </Text>
            <Code block data-testid="current-activation-key" style={{ wordBreak: 'break-all' }}>
              {activationKey || '—'}
            </Code>
            <Checkbox
              label="Reset Activation Key"
              description="Issues a new key on save; the current key stops working for new sign-ups."
              {...form.getInputProps('reset_activation_key', { type: 'checkbox' })}
            />
          </Stack>
        )}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onCancel} disabled={submitting}>
            Cancel
          </Button>
          <Button type="submit" loading={submitting}>
            {mode === 'create' ? 'Create Company' : 'Save Changes'}
          </Button>
        </Group>
      </Stack>
    </form>
  )
}
