import { AI_DOCUMENT_ACCEPT, AI_HUB_MESSAGES, aiUploadSelectionSchema, type AiDocument } from '@citrus/contracts'
import { ActionIcon, Badge, Group, Paper, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core'
import { schemaResolver, useForm } from '@mantine/form'
import { IconFileText, IconTrash, IconUpload } from '@tabler/icons-react'
import { useRef, useState, type DragEvent } from 'react'
import { apiMessageOf } from '../../../lib/api-client'
import { notify } from '../../../lib/notify'
import { useDeleteDocument, useUploadDocument } from '../api/ai-hub'
import { formatBytes, formatTokens } from '../utils/format'

const resolveSelection = schemaResolver(aiUploadSelectionSchema, { sync: true })

/** The Document Library (spec 2 §2): drag-and-drop or click upload, the list with sizes and tokens, remove. */
export function DocumentLibrary({ documents }: { documents: readonly AiDocument[] }) {
  const input = useRef<HTMLInputElement>(null)
  const [dragging, setDragging] = useState(false)
  const [uploading, setUploading] = useState<string | null>(null)
  // the files chosen or dropped, checked by the contract's upload rules before anything is sent (a drop skips `accept`)
  const selection = useForm<{ files: File[] }>({
    mode: 'controlled',
    initialValues: { files: [] },
    validate: (values) => resolveSelection({ files: values.files.map((file) => ({ name: file.name, size: file.size })) }),
  })
  const upload = useUploadDocument()
  const remove = useDeleteDocument()

  // Several files are uploaded one after another (spec 2 §5); each succeeds or fails on its own.
  async function uploadAll(files: readonly File[]) {
    for (const file of files) {
      setUploading(file.name)
      try {
        await upload.mutateAsync(file)
      } catch (error) {
        notify({ severity: 'error', message: apiMessageOf(error, AI_HUB_MESSAGES.uploadFailed(file.name)) })
      }
    }
    setUploading(null)
  }

  /** A new selection replaces the last one (and its message); an invalid one shows the rule it breaks and sends nothing. */
  function choose(files: File[]) {
    selection.setFieldValue('files', files)
    selection.onSubmit((values) => uploadAll(values.files))()
  }

  function onDrop(event: DragEvent<HTMLElement>) {
    event.preventDefault()
    setDragging(false)
    choose([...event.dataTransfer.files])
  }

  return (
    <Stack gap="sm">
      <UnstyledButton
        onClick={() => input.current?.click()}
        onDragOver={(event) => {
          event.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        disabled={uploading !== null}
        data-testid="ai-upload-area"
        style={{
          border: `2px dashed var(--mantine-color-${dragging ? 'citrus-6' : 'gray-4'})`,
          borderRadius: 'var(--mantine-radius-md)',
          padding: 'var(--mantine-spacing-md)',
          textAlign: 'center',
          background: dragging ? 'var(--mantine-color-citrus-0)' : undefined,
        }}
      >
        <Stack gap={4} align="center">
          <IconUpload size={22} />
          <Text size="sm" fw={600}>
            {uploading ? AI_HUB_MESSAGES.uploading(uploading) : AI_HUB_MESSAGES.dropFiles}
          </Text>
          <Text size="xs" c="dimmed">
            {AI_HUB_MESSAGES.dropFilesHint}
          </Text>
        </Stack>
      </UnstyledButton>
      <input
        ref={input}
        type="file"
        multiple
        accept={AI_DOCUMENT_ACCEPT}
        hidden
        data-testid="ai-upload-input"
        onChange={(event) => {
          const files = [...(event.currentTarget.files ?? [])]
          event.currentTarget.value = ''
          choose(files)
        }}
      />
      {selection.errors.files && (
        <Text size="sm" c="red" role="alert" data-testid="ai-upload-error">
          {selection.errors.files}
        </Text>
      )}
      {documents.length === 0 ? (
        <Text size="sm" c="dimmed" ta="center" py="sm">
          {AI_HUB_MESSAGES.documentsEmpty}
        </Text>
      ) : (
        <Stack gap={6} data-testid="ai-documents">
          {documents.map((document) => (
            <Paper key={document.id} withBorder p="xs" radius="md" data-testid="ai-document">
              <Group gap="xs" wrap="nowrap" justify="space-between">
                <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
                  <IconFileText size={18} />
                  <div style={{ minWidth: 0 }}>
                    <Text size="sm" fw={600} truncate>
                      {document.filename}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {formatBytes(document.size)} • {formatTokens(document.tokens)} tokens • {document.pages} {document.pageUnit}
                      {document.pages === 1 ? '' : 's'}
                    </Text>
                  </div>
                </Group>
                <Group gap={4} wrap="nowrap">
                  <Badge size="xs" variant="light">
                    {document.type.toUpperCase()}
                  </Badge>
                  <Tooltip label="Remove document">
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Remove ${document.filename}`}
                      loading={remove.isPending && remove.variables?.params.document_id === document.id}
                      onClick={() =>
                        remove.mutate(
                          { params: { document_id: document.id } },
                          {
                            onError: (error) => notify({ severity: 'error', message: apiMessageOf(error, AI_HUB_MESSAGES.removeFailed) }),
                          },
                        )
                      }
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </Group>
            </Paper>
          ))}
        </Stack>
      )}
    </Stack>
  )
}
