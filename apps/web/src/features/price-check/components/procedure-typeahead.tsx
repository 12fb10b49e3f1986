import { CloseButton, Loader, Paper, ScrollArea, Stack, Text, TextInput, UnstyledButton } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { IconSearch } from '@tabler/icons-react'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { PRICE_CHECK_TYPEAHEAD_DEBOUNCE_MS } from '@citrus/contracts'
import { useProcedureSuggestions, type ProcedureOption } from '../api/price-check'
import type { ChosenProcedure } from '../utils/price-check'

/** The suggestion list's height limit (spec 3 §9). */
export const SUGGESTION_LIST_MAX_HEIGHT = 300

/**
 * Procedure type-ahead (spec 3 §2.6, §5, §9): typing is debounced 300 ms; the list shows when there are
 * suggestions; Enter picks the first; the clear button empties the field; a click outside closes the list.
 * A failed look-up is logged and clears the suggestions, with no message to the user (spec 3 §8).
 * `onTextChange` reports every edit of the text (the form clears the procedure error with it, spec 3 §2.6).
 * The clear button shows whenever there is text, loading or not (the loader takes the search icon's place),
 * and its section asks for pointer events explicitly (Mantine's Input defaults its sections to `none`).
 */
export function ProcedureTypeahead({
  value,
  onChange,
  onTextChange,
  error,
}: {
  value: ChosenProcedure | null
  onChange: (procedure: ChosenProcedure | null) => void
  onTextChange?: (text: string) => void
  error?: ReactNode
}) {
  const [text, setText] = useState(value?.name ?? '')
  const [open, setOpen] = useState(false)
  const [debounced] = useDebouncedValue(text, PRICE_CHECK_TYPEAHEAD_DEBOUNCE_MS)
  const suggestions = useProcedureSuggestions(open ? debounced : '')
  const options: ProcedureOption[] = suggestions.isError ? [] : (suggestions.data?.procedures ?? [])
  const root = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (suggestions.isError) console.warn('Procedure type-ahead failed', suggestions.error)
  }, [suggestions.isError, suggestions.error])

  // the chosen procedure may change from outside (address bar): adjusted while rendering, not in an effect
  const [shown, setShown] = useState(value)
  if (value !== shown) {
    setShown(value)
    if (value) setText(value.name)
  }

  useEffect(() => {
    const close = (event: MouseEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', close)
    return () => document.removeEventListener('mousedown', close)
  }, [])

  const pick = (option: ProcedureOption) => {
    onChange({ name: option.name, cpt_codes: option.cpt_codes, description: option.description })
    setText(option.name)
    setOpen(false)
  }

  const showList = open && debounced.trim() !== '' && options.length > 0
  return (
    <div ref={root} style={{ position: 'relative' }}>
      <TextInput
        label="Procedure"
        placeholder="Search a procedure, e.g. MRI of the knee"
        leftSection={suggestions.isFetching ? <Loader size="xs" /> : <IconSearch size={16} />}
        value={text}
        error={error}
        autoComplete="off"
        role="combobox"
        aria-expanded={showList}
        aria-controls="procedure-suggestions"
        onChange={(event) => {
          const next = event.currentTarget.value
          setText(next)
          setOpen(true)
          onTextChange?.(next)
          if (value && next !== value.name) onChange(null)
        }}
        onFocus={() => setOpen(true)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault()
            const first = options[0]
            if (first && debounced.trim() !== '') pick(first)
          } else if (event.key === 'Escape') setOpen(false)
        }}
        rightSectionPointerEvents="all"
        rightSection={
          text ? (
            <CloseButton
              aria-label="Clear procedure"
              onClick={() => {
                setText('')
                onTextChange?.('')
                onChange(null)
                setOpen(false)
              }}
            />
          ) : null
        }
      />
      {showList && (
        <Paper withBorder shadow="md" radius="md" mt={4} pos="absolute" left={0} right={0} style={{ zIndex: 300 }}>
          <ScrollArea.Autosize mah={SUGGESTION_LIST_MAX_HEIGHT}>
            <Stack gap={0} id="procedure-suggestions" role="listbox" aria-label="Procedure suggestions">
              {options.map((option) => (
                <UnstyledButton
                  key={option.name}
                  role="option"
                  aria-selected={value?.name === option.name}
                  px="sm"
                  py={6}
                  onClick={() => pick(option)}
                >
                  <Text size="sm" fw={500}>
                    {option.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {option.cpt_codes.join(', ')} · {option.description}
                  </Text>
                </UnstyledButton>
              ))}
            </Stack>
          </ScrollArea.Autosize>
        </Paper>
      )}
    </div>
  )
}
