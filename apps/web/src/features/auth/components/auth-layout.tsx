import { Anchor, Box, Flex, Group, Paper, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { Logo } from '../../../components/brand/logo'
import { links } from '../../../config/env'

/** Split layout of Sign In, Sign Up and Reset password (spec 1 §2); the branded panel is hidden on mobile. */
export function AuthLayout({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string
  subtitle?: string
  children: ReactNode
  footer?: ReactNode
}) {
  return (
    <Flex mih="100vh" direction="row">
      <Box
        visibleFrom="md"
        w="45%"
        p={48}
        data-testid="auth-brand-panel"
        style={{
          background:
            'linear-gradient(160deg, var(--mantine-color-citrus-8) 0%, var(--mantine-color-citrus-6) 60%, var(--mantine-color-lime-5) 100%)',
          color: 'white',
        }}
      >
        <Stack justify="space-between" h="100%">
          <Logo inverted />
          <Stack gap="sm">
            <Title order={2} c="white">
              Healthcare intelligence for your whole organization
            </Title>
            <Text c="white" opacity={0.9}>
              Explore different apps for your organization's needs: population insights, provider search, price transparency and AI-assisted
              strategy in one platform.
            </Text>
          </Stack>
          <Text size="sm" c="white" opacity={0.8}>
            Powered by Citrus
          </Text>
        </Stack>
      </Box>
      <Flex flex={1} align="center" justify="center" p={{ base: 'md', sm: 'xl' }} bg="var(--mantine-color-gray-0)">
        <Stack w="100%" maw={440} gap="lg">
          <Box hiddenFrom="md">
            <Logo />
          </Box>
          <Paper withBorder shadow="sm" radius="lg" p="xl">
            <Stack gap="md">
              <Stack gap={4}>
                <Title order={1} fz={28}>
                  {title}
                </Title>
                {subtitle && <Text c="dimmed">{subtitle}</Text>}
              </Stack>
              {children}
            </Stack>
          </Paper>
          {footer}
          <Group justify="center" gap="lg">
            <Anchor href={links.termsOfUse} size="sm" c="dimmed" target="_blank" rel="noreferrer">
              Terms of Use
            </Anchor>
            <Anchor href={links.demo} size="sm" c="dimmed">
              Sign-up for a Demo
            </Anchor>
          </Group>
          <Text size="xs" c="dimmed" ta="center" hiddenFrom="md">
            Powered by Citrus
          </Text>
        </Stack>
      </Flex>
    </Flex>
  )
}
