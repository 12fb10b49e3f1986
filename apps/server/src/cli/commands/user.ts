import { ROLES, type Role } from '@citrus/contracts'
import { OnboardingService } from '../../domain/onboarding.js'
import { UserService, type UserRecord } from '../../domain/users.js'
import { requireId, requireString, UsageError, type Command } from '../command.js'

function userLine(user: UserRecord): string {
  return `${String(user.id).padStart(5)}  ${user.email.padEnd(36)} ${user.role.padEnd(7)} company ${user.company_id}${user.is_active ? '' : '  (deactivated)'}`
}

/** Users: create, list, change role, deactivate, invite. */
export const userCommands: Command[] = [
  {
    name: 'user create',
    summary: 'Create a user in a company',
    usage: `user create --email <email> --password <password> --company <id> [--role ${ROLES.join('|')}] [--phone <+1...>]`,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      company: { type: 'string' },
      role: { type: 'string' },
      phone: { type: 'string' },
    },
    async run(context, values) {
      const user = await new UserService(context.db.prisma).create({
        email: requireString(values, 'email'),
        password: requireString(values, 'password'),
        company_id: requireId(values.company as string | undefined, '--company'),
        ...(typeof values.role === 'string' ? { role: values.role as UserRecord['role'] } : {}),
        ...(typeof values.phone === 'string' ? { phone_number: values.phone } : {}),
      })
      context.print(user, () => `User created.\n${userLine(user)}`)
    },
  },
  {
    name: 'user list',
    summary: 'List users, optionally of one company',
    usage: 'user list [--company <id>]',
    options: { company: { type: 'string' } },
    async run(context, values) {
      const companyId = values.company === undefined ? undefined : requireId(values.company as string, '--company')
      const users = await new UserService(context.db.prisma).list(companyId === undefined ? {} : { company_id: companyId })
      context.print(users, () => (users.length === 0 ? 'No users found' : users.map(userLine).join('\n')))
    },
  },
  {
    name: 'user set-role',
    summary: "Change a user's role",
    usage: `user set-role <id|email> <${ROLES.join('|')}>`,
    async run(context, _values, [who, role]) {
      if (!who || !role) throw new UsageError('user set-role needs a user and a role')
      const user = await new UserService(context.db.prisma).setRole(who, role)
      context.print(user, () => `Role changed.\n${userLine(user)}`)
    },
  },
  {
    name: 'user deactivate',
    summary: 'Stop a user from signing in; their tokens and API keys stop working',
    usage: 'user deactivate <id|email>',
    async run(context, _values, [who]) {
      if (!who) throw new UsageError('user deactivate needs a user id or e-mail')
      const user = await new UserService(context.db.prisma).deactivate(who)
      context.print(user, () => `User deactivated.\n${userLine(user)}`)
    },
  },
  {
    name: 'user invite',
    summary: 'Invite a person into a company with a role; prints the single-use sign-up link (valid 7 days) to hand over',
    usage: 'user invite --email <email> --company <id> [--role user|admin|citrus]',
    options: { email: { type: 'string' }, company: { type: 'string' }, role: { type: 'string' } },
    async run(context, values) {
      if (typeof values.email !== 'string' || values.email.trim() === '') throw new UsageError('--email is required')
      const publicUrl = (context.env.PUBLIC_URL ?? `http://localhost:${context.env.PORT}`).replace(/\/+$/, '')
      const issued = await new OnboardingService(context.db.prisma, null, publicUrl).issueLink({
        email: values.email,
        company_id: requireId(values.company, '--company'),
        role: (typeof values.role === 'string' ? values.role.trim().toLowerCase() : 'user') as Role,
      })
      context.print(issued, () =>
        [
          `Invitation ${issued.invitation_id} created; it expires ${issued.expires_at.toISOString()}.`,
          'Sign-up link (works once, for this e-mail address only; it is not stored and cannot be shown again):',
          issued.link,
        ].join('\n'),
      )
    },
  },
]
