import { Box } from '@mantine/core'
import { Outlet } from 'react-router'

/** Placeholder shell; replaced by the sidebar layout. */
export function AppLayout() {
  return (
    <Box p="md">
      <Outlet />
    </Box>
  )
}
