import { Badge, type BadgeProps } from '@mantine/core'
import { roleColor } from '../../lib/roles'

/** A user's role as a badge, in the role's one colour (lib/roles ROLE_COLORS) wherever roles are listed. */
export function RoleBadge({ role, size }: { role: string | null | undefined; size?: BadgeProps['size'] }) {
  return (
    <Badge variant="light" color={roleColor(role)} size={size} data-role-color={roleColor(role)}>
      {role || 'unknown'}
    </Badge>
  )
}
