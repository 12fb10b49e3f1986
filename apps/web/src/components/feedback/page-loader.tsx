import { Center } from '@mantine/core'
import { InlineLoader } from './loading'

/** Shown while a page's code or first data loads inside the shell. */
export function PageLoader() {
  return (
    <Center mih="40vh">
      <InlineLoader />
    </Center>
  )
}
