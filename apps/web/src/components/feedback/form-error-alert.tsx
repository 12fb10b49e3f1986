import { Alert, Text } from '@mantine/core'
import { IconAlertTriangle } from '@tabler/icons-react'
import type { ReactNode } from 'react'

/** A form's error: a message and, where it adds something, the server's own words. */
export interface FormError {
  message: string
  detail?: string
}

/** The red alert shown at the top of a form when submitting it failed. */
export function FormErrorAlert({ title, children }: { title?: ReactNode; children: ReactNode }) {
  return (
    <Alert color="red" icon={<IconAlertTriangle size={18} />} title={title} role="alert">
      {children}
    </Alert>
  )
}

/** {@link FormErrorAlert} with the message and, when it differs, the detail under it. */
export function FormErrorDetailAlert({ error }: { error: FormError }) {
  return (
    <FormErrorAlert>
      <Text size="sm">{error.message}</Text>
      {error.detail && error.detail !== error.message && (
        <Text size="sm" c="dimmed" mt={4}>
          {error.detail}
        </Text>
      )}
    </FormErrorAlert>
  )
}
