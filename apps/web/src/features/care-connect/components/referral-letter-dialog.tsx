import { REFERRAL_LETTER_FILENAME, isValidBirthDate, type RankingsQuery } from '@citrus/contracts'
import { Alert, Button, Group, Modal, Stack, TextInput, Textarea } from '@mantine/core'
import { useState } from 'react'
import { notify } from '../../../lib/notify'
import { saveBlob } from '../../../lib/save-file'
import { useReferralLetter } from '../api/care-api'
import { CARE_MESSAGES_UI, CARE_TEXT } from '../utils/messages'

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
  const [name, setName] = useState('')
  const [dob, setDob] = useState('')
  const [notes, setNotes] = useState('')
  const [errors, setErrors] = useState<{ name?: string; dob?: string; form?: string }>({})
  const [done, setDone] = useState(false)
  const letter = useReferralLetter()

  function submit() {
    const next: typeof errors = {}
    if (name.trim() === '') next.name = CARE_MESSAGES_UI.patientNameRequired
    if (!isValidBirthDate(dob)) next.dob = CARE_MESSAGES_UI.dobRequired
    if (next.name || next.dob) {
      setErrors({ ...next, form: CARE_MESSAGES_UI.invalidForm })
      return
    }
    setErrors({})
    letter.mutate(
      { patient_name: name.trim(), dob, destination_fax: '', condition: notes, selected_npis: selectedNpis, search },
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
  }

  return (
    <Modal opened={opened} onClose={onClose} title={CARE_TEXT.letterTitle} size="md">
      <Stack gap="sm">
        <Alert variant="light">{CARE_TEXT.letterSubtitle}</Alert>
        {errors.form && <Alert color="red">{errors.form}</Alert>}
        {done && <Alert color="green">{CARE_MESSAGES_UI.succeeded}</Alert>}
        <TextInput label="Patient name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={errors.name} required />
        <TextInput
          label="Date of birth"
          type="date"
          value={dob}
          onChange={(e) => setDob(e.currentTarget.value)}
          error={errors.dob}
          required
          max={new Date().toISOString().slice(0, 10)}
        />
        <Textarea
          label="Notes"
          description="Condition and anything the receiving provider should know (optional)"
          value={notes}
          onChange={(e) => setNotes(e.currentTarget.value)}
          autosize
          minRows={3}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={submit} loading={letter.isPending}>
            Generate
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
