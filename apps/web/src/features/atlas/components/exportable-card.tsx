import { ActionIcon, Group, Paper, Tooltip, type PaperProps } from '@mantine/core'
import { IconPhotoDown } from '@tabler/icons-react'
import { useRef, useState, type ReactNode } from 'react'
import { exportCardPng } from '../utils/image-export'

/** The attribute that marks an exportable card (its value is the card title, the PNG's file-name source). */
export const EXPORT_CARD_ATTRIBUTE = 'data-export-card'

/**
 * The export control of a card: downloads the card as atlas-{card}-{date}.png. It is marked
 * data-export-ignore (EXPORT_IGNORE_ATTRIBUTE), so the image leaves it out.
 */
export function PngExportButton({ title, target }: { title: string; target: () => HTMLElement | null }) {
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    try {
      await exportCardPng(target(), title)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Tooltip label="Export PNG">
      <ActionIcon
        variant="subtle"
        color="gray"
        size="sm"
        aria-label={`Export ${title} as PNG`}
        loading={busy}
        onClick={() => void run()}
        data-export-ignore=""
      >
        <IconPhotoDown size={16} />
      </ActionIcon>
    </Tooltip>
  )
}

/**
 * A card of the Overview that can export itself as a PNG (spec 2 §2): the heading row holds the title
 * (any node) and the export control; the file name is taken from `title`.
 */
export function ExportableCard({
  title,
  heading,
  children,
  ...paper
}: { title: string; heading: ReactNode; children: ReactNode } & PaperProps & Record<`data-${string}`, string>) {
  const ref = useRef<HTMLDivElement>(null)
  return (
    <Paper withBorder radius="md" p="md" ref={ref} data-export-card={title} {...paper}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
        {heading}
        <PngExportButton title={title} target={() => ref.current} />
      </Group>
      {children}
    </Paper>
  )
}
