import { DEFAULT_DEMO_PASSWORD, ensureDemoAccounts } from '../../seed/demo-accounts.js'
import type { Command } from '../command.js'

/** The demo company and one user per role. */
export const seedCommands: Command[] = [
  {
    name: 'seed demo',
    summary: 'Create the demo company with every product group and one user per role',
    usage: "seed demo [--password <password>]   (default: DEMO_PASSWORD or the README's demo password)",
    options: { password: { type: 'string' } },
    async run(context, values) {
      const password = (values.password as string | undefined) ?? context.env.DEMO_PASSWORD ?? DEFAULT_DEMO_PASSWORD
      const demo = await ensureDemoAccounts(context.db.prisma, password)
      context.print(
        demo,
        () =>
          `Demo company ${demo.companyId} (activation key ${demo.activationKey}):\n${demo.users.map((u) => `  ${u.role.padEnd(7)} ${u.email}`).join('\n')}`,
      )
    },
  },
]
