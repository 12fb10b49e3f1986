import { ATLAS_MESSAGES, ATLAS_ZIP_PATTERN } from '@citrus/contracts'
import { Badge, Button, FileButton, Group, Stack, Text, Textarea, Tooltip } from '@mantine/core'
import { useState } from 'react'
import { notify } from '../../../lib/notify'
import { parseZipCsv, splitZipText } from '../utils/zips'

/** Custom ZIP list: typed, pasted or uploaded as CSV (spec 2 §5). */
export function ZipInput({ value, onChange, error }: { value: string[]; onChange: (zips: string[]) => void; error?: string | null }) {
  const [text, setText] = useState('')
  const add = (raw: string) => {
    const { valid, invalid } = splitZipText(raw)
    onChange([...new Set([...value, ...valid, ...invalid])])
    setText('')
  }
  const upload = async (file: File | null) => {
    if (!file) return
    if (!file.name.toLowerCase().endsWith('.csv')) {
      notify({ severity: 'error', message: ATLAS_MESSAGES.csvOnly })
      return
    }
    try {
      const { zips, skipped } = parseZipCsv(await file.text())
      onChange([...new Set([...value, ...zips])])
      notify({ severity: 'success', message: ATLAS_MESSAGES.zipsAdded(zips.length, skipped) })
    } catch {
      notify({ severity: 'error', message: ATLAS_MESSAGES.csvParseFailed })
    }
  }
  const invalid = value.filter((z) => !ATLAS_ZIP_PATTERN.test(z))
  return (
    <Stack gap="xs">
      <Textarea
        label="ZIP codes"
        placeholder="Type or paste ZIP codes"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        onPaste={(e) => {
          e.preventDefault()
          add(e.clipboardData.getData('text'))
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ',') {
            e.preventDefault()
            add(text)
          }
        }}
        onBlur={() => text.trim() && add(text)}
        error={error}
        autosize
        minRows={2}
      />
      <Group gap={6}>
        {value.map((zip) =>
          ATLAS_ZIP_PATTERN.test(zip) ? (
            <Badge key={zip} variant="light" style={{ cursor: 'pointer' }} onClick={() => onChange(value.filter((z) => z !== zip))}>
              {zip} ×
            </Badge>
          ) : (
            <Tooltip key={zip} label={ATLAS_MESSAGES.invalidZipChip}>
              <Badge color="red" variant="light" style={{ cursor: 'pointer' }} onClick={() => onChange(value.filter((z) => z !== zip))}>
                {zip} ×
              </Badge>
            </Tooltip>
          ),
        )}
      </Group>
      <Group justify="space-between">
        <Text size="xs" c="dimmed">
          {value.length - invalid.length} selected{invalid.length > 0 ? `, ${invalid.length} invalid` : ''}
        </Text>
        <FileButton onChange={(file) => void upload(file)} accept=".csv,text/csv">
          {(props) => (
            <Button size="xs" variant="light" {...props}>
              Upload CSV
            </Button>
          )}
        </FileButton>
      </Group>
    </Stack>
  )
}
