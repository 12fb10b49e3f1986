import { Button, Center, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core'
import { IconLinkOff, IconLock, IconShieldLock } from '@tabler/icons-react'
import { PRODUCT_NAMES, type ProductGroup, type SessionRole } from '@citrus/contracts'
import type { ReactNode } from 'react'
import { useNavigate } from 'react-router'
import { env } from '../../config/env'
import { useHomePath } from '../layouts/use-viewer'
import {
  ACCESS_RESTRICTED_TITLE,
  INVALID_LINK_MESSAGE,
  INVALID_LINK_TITLE,
  PRODUCT_ACCESS_TITLE,
  accessRestrictedMessage,
  productAccessMessage,
} from './messages'

function DenialLayout({ icon, title, message, actions }: { icon: ReactNode; title: string; message: string; actions: ReactNode }) {
  return (
    <Center mih="100vh" p="xl">
      <Paper withBorder shadow="sm" radius="lg" p="xl" maw={560}>
        <Stack align="center" ta="center" gap="md">
          <ThemeIcon size={64} radius="xl" variant="light" color="red">
            {icon}
          </ThemeIcon>
          <Title order={2}>{title}</Title>
          <Text c="dimmed">{message}</Text>
          <Group justify="center">{actions}</Group>
        </Stack>
      </Paper>
    </Center>
  )
}

/** Role denial: 'Access Restricted' with Go Back and Go to Dashboard. */
export function AccessRestricted({ role }: { role: SessionRole }) {
  const navigate = useNavigate()
  const home = useHomePath()
  return (
    <DenialLayout
      icon={<IconShieldLock size={32} />}
      title={ACCESS_RESTRICTED_TITLE}
      message={accessRestrictedMessage(role)}
      actions={
        <>
          <Button variant="default" onClick={() => navigate(-1)}>
            Go Back
          </Button>
          {home && <Button onClick={() => navigate(home)}>Go to Dashboard</Button>}
        </>
      }
    />
  )
}

/** Product denial: 'Product Access Required' with Contact Support and Go Back. */
export function ProductAccessRequired({ product }: { product: ProductGroup }) {
  const navigate = useNavigate()
  return (
    <DenialLayout
      icon={<IconLock size={32} />}
      title={PRODUCT_ACCESS_TITLE}
      message={productAccessMessage(PRODUCT_NAMES[product])}
      actions={
        <>
          <Button component="a" href={`mailto:${env.contactEmail}`}>
            Contact Support
          </Button>
          <Button variant="default" onClick={() => navigate(-1)}>
            Go Back
          </Button>
        </>
      }
    />
  )
}

/** A rejected shareable link: 'Invalid or Expired Link' with Go to Sign In. */
export function InvalidLink() {
  const navigate = useNavigate()
  return (
    <DenialLayout
      icon={<IconLinkOff size={32} />}
      title={INVALID_LINK_TITLE}
      message={INVALID_LINK_MESSAGE}
      actions={<Button onClick={() => navigate('/sign-in')}>Go to Sign In</Button>}
    />
  )
}
