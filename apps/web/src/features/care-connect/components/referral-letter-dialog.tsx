import { REFERRAL_LETTER_FILENAME, referralLetterRequestSchema, type RankingsQuery } from '@citrus/contracts'
import { Alert, Button, Group, Modal, Stack, TextInput, Textarea } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { useState } from 'react'
import { notify } from '../../../lib/notify'
import { saveBlob } from '../../../lib/save-file'
import { useReferralLetter } from '../api/care-api'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'

/** The fields the dialog asks for, with the request's rules: 'Patient name is required', 'Date of birth is required'. */
const letterFormSchema = referralLetterRequestSchema.pick({ patient_name: true, dob: true })

/** Referral Letter Generator (spec 3 §2.5, §4.7, §5): patient name, date of birth, notes; downloads referral_letter.pdf. */
export function ReferralLetterDialog({
  opened,
  onClose,
  selectedNpis,
  search,
}: {
  opened: boolean
  onClose: () => void
  selectedNpis: string[]
  search: RankingsQuery
}) {
  // checked on Generate with the contract's request schema; the errors stay until the next Generate
  const form = useForm({
    mode: 'controlled',
    initialValues: { patient_name: '', dob: '', condition: '' },
    validate: schemaResolver(letterFormSchema, { sync: true }),
    clearInputErrorOnChange: false,
  })
  const [done, setDone] = useState(false)
  const letter = useReferralLetter()
  const invalid = Object.keys(form.errors).length > 0

  const submit = form.onSubmit(({ patient_name, dob, condition }) => {
    letter.mutate(
      { patient_name: patient_name.trim(), dob, destination_fax: '', condition, selected_npis: selectedNpis, search },
      {
        onSuccess: (blob) => {
          saveBlob(blob, REFERRAL_LETTER_FILENAME)
          setDone(true)
          notify({ severity: 'success', message: CARE_MESSAGES_UI.succeeded })
          // the dialog closes 2 seconds after success (spec 3 §9)
          setTimeout(() => {
            setDone(false)
            onClose()
          }, 2000)
        },
        onError: () => notify({ severity: 'error', message: CARE_MESSAGES_UI.failed }),
      },
    )
  })

  return (
    <Modal opened={opened} onClose={onClose} title={CARE_TEXT.letterTitle} size="md">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Alert variant="light">{CARE_TEXT.letterSubtitle}</Alert>
          {invalid && <Alert color="red">{CARE_MESSAGES_UI.invalidForm}</Alert>}
          {done && <Alert color="green">{CARE_MESSAGES_UI.succeeded}</Alert>}
          <TextInput label="Patient name" {...form.getInputProps('patient_name')} required />
          <TextInput
            label="Date of birth"
            type="date"
            {...form.getInputProps('dob')}
            required
            max={new Date().toISOString().slice(0, 10)}
          />
          <Textarea
            label="Notes"
            description="Condition and anything the receiving provider should know (optional)"
            {...form.getInputProps('condition')}
            autosize
            minRows={3}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={letter.isPending}>
              Generate
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
