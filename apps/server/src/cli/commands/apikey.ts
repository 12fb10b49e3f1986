import type { ApiToken } from '@citrus/contracts'
import { ApiTokenService } from '../../domain/api-tokens.js'
import { CLI_ACTOR } from '../../domain/audit.js'
import { UserService } from '../../domain/users.js'
import { requireId, UsageError, type Command } from '../command.js'

function tokenLine(token: ApiToken): string {
  const lastUsed = token.last_used_at ?? 'never used'
  return `${token.id}  sk-${token.masked_token}...  ${(token.name ?? 'Unnamed Token').padEnd(24)} ${token.user_email.padEnd(32)} company ${token.company_id}  created ${token.created_at.slice(0, 10)}  last used ${lastUsed}`
}

/** API keys: create (shown once), list (masked), revoke. */
export const apikeyCommands: Command[] = [
  {
    name: 'apikey create',
    summary: "Create an API key acting as a user (in the user's company); prints the key once",
    usage: 'apikey create --user <id|email> [--name <name>]',
    options: { user: { type: 'string' }, name: { type: 'string' } },
    async run(context, values) {
      const who = values.user
      if (typeof who !== 'string' || who.trim() === '') throw new UsageError('--user is required')
      const user = await new UserService(context.db.prisma).find(who.trim())
      const created = await new ApiTokenService(context.db.prisma, CLI_ACTOR).create({
        user_id: user.id,
        name: typeof values.name === 'string' ? values.name : null,
      })
      context.print(created, () =>
        [
          `API key created for ${created.user_email} (company ${created.company_id}).`,
          tokenLine(created),
          '',
          'Key (shown once; it cannot be recovered, only revoked and replaced):',
          created.token,
        ].join('\n'),
      )
    },
  },
  {
    name: 'apikey list',
    summary: 'List active API keys (masked), of a user or a company',
    usage: 'apikey list [--user <id|email>] [--company <id>]',
    options: { user: { type: 'string' }, company: { type: 'string' } },
    async run(context, values) {
      const userId = typeof values.user === 'string' ? (await new UserService(context.db.prisma).find(values.user.trim())).id : undefined
      const companyId = values.company === undefined ? undefined : requireId(values.company, '--company')
      const tokens = await new ApiTokenService(context.db.prisma, CLI_ACTOR).list({
        ...(userId !== undefined ? { user_id: userId } : {}),
        ...(companyId !== undefined ? { company_id: companyId } : {}),
      })
      context.print(tokens, () => (tokens.length === 0 ? 'No API keys found' : tokens.map(tokenLine).join('\n')))
    },
  },
  {
    name: 'apikey revoke',
    summary: 'Revoke an API key; it stops working at once',
    usage: 'apikey revoke <id>',
    async run(context, _values, [id]) {
      if (!id) throw new UsageError('apikey revoke needs the key id (see apikey list)')
      const revoked = await new ApiTokenService(context.db.prisma, CLI_ACTOR).revoke(id.trim())
      context.print(revoked, () => `API key revoked.\n${tokenLine(revoked)}`)
    },
  },
]
