import type { FastifyBaseLogger } from 'fastify'
import type { PrismaClient } from '../db/database.js'
import type { MessageChannel, MessageOutbox, Prisma } from '../generated/prisma/client.js'

/**
 * The persisted message outbox (spec 4 §5). A message is written in the same transaction as the
 * change that causes it, then delivered by a worker with retries and exponential backoff, so a
 * provider outage loses nothing. A channel without a configured provider keeps its messages with
 * status `held` (readable in the table and, outside production, printed to the log).
 *
 * Delivery claims due rows with FOR UPDATE SKIP LOCKED and leases them, so several server processes
 * can share one table without sending a message twice in the normal case.
 */

export type Deliver = (message: MessageOutbox) => Promise<void>

export interface OutboxMessageInput {
  /** the message id when the caller must know it before the row exists (answered before it is written) */
  id?: string
  channel: MessageChannel
  recipient: string
  subject?: string | null
  body: string
  payload?: Prisma.InputJsonValue | null
}

export interface OutboxOptions {
  prisma: PrismaClient
  log: FastifyBaseLogger
  deliverers: Partial<Record<MessageChannel, Deliver>>
  /** print the body of held messages (development: the reset link is in it) */
  logHeldBodies: boolean
  /** only messages of this scope are written and claimed (null = the unscoped, normal deployment) */
  scope?: string | null
  maxAttempts?: number
  /** delay before retry n (1-based) */
  backoffMs?: (attempt: number) => number
  batchSize?: number
  /** how long a claimed message is reserved for the sender that claimed it */
  leaseMs?: number
  now?: () => Date
}

export interface FlushResult {
  sent: number
  retrying: number
  failed: number
}

/** 30 s, 1 min, 2 min, ... capped at 1 h. */
export const defaultBackoffMs = (attempt: number) => Math.min(30_000 * 2 ** Math.max(0, attempt - 1), 60 * 60_000)
export const OUTBOX_MAX_ATTEMPTS = 8

type Db = PrismaClient | Prisma.TransactionClient

export class Outbox {
  private readonly maxAttempts: number
  private readonly backoffMs: (attempt: number) => number
  private readonly batchSize: number
  private readonly leaseMs: number
  private readonly now: () => Date
  /** the delivery scope its messages are written and claimed under (null = the normal deployment) */
  readonly scope: string | null
  private queue: Promise<unknown> = Promise.resolve()
  private timer: NodeJS.Timeout | null = null
  private stopped = false

  constructor(private readonly options: OutboxOptions) {
    this.maxAttempts = options.maxAttempts ?? OUTBOX_MAX_ATTEMPTS
    this.backoffMs = options.backoffMs ?? defaultBackoffMs
    this.batchSize = options.batchSize ?? 20
    this.leaseMs = options.leaseMs ?? 5 * 60_000
    this.now = options.now ?? (() => new Date())
    this.scope = options.scope ?? null
  }

  canDeliver(channel: MessageChannel): boolean {
    return this.options.deliverers[channel] !== undefined
  }

  /** Stores a message (pass the transaction client to make it part of a transaction). */
  async enqueue(input: OutboxMessageInput, db: Db = this.options.prisma): Promise<MessageOutbox> {
    const held = !this.canDeliver(input.channel)
    const message = await db.messageOutbox.create({
      data: {
        ...(input.id === undefined ? {} : { id: input.id }),
        channel: input.channel,
        recipient: input.recipient,
        subject: input.subject ?? null,
        body: input.body,
        ...(input.payload === undefined || input.payload === null ? {} : { payload: input.payload }),
        status: held ? 'held' : 'pending',
        next_attempt_at: this.now(),
        scope: this.scope,
      },
    })
    if (held) {
      this.options.log.info(
        {
          message_id: message.id,
          channel: message.channel,
          subject: message.subject,
          ...(this.options.logHeldBodies ? { recipient: message.recipient, body: message.body } : {}),
        },
        `message held in the outbox: no ${message.channel} provider is configured`,
      )
    } else if (this.timer) {
      // deliver soon rather than at the next tick; after the caller's transaction has committed
      setTimeout(() => void this.flush().catch(() => undefined), 50).unref()
    }
    return message
  }

  /** Delivers every due message; calls are serialised, so concurrent flushes never overlap. */
  flush(): Promise<FlushResult> {
    const run = this.queue.then(() => this.drain())
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Starts the periodic worker (0 = never; tests call flush()). */
  start(intervalMs: number) {
    if (intervalMs <= 0 || this.timer || this.stopped) return
    this.timer = setInterval(() => {
      this.flush().catch((error: unknown) => this.options.log.error({ err: error }, 'outbox flush failed'))
    }, intervalMs)
    this.timer.unref()
  }

  async stop() {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.queue
  }

  private async drain(): Promise<FlushResult> {
    const result: FlushResult = { sent: 0, retrying: 0, failed: 0 }
    // bounded so that one flush cannot run forever while new messages keep arriving
    for (let round = 0; round < 50; round++) {
      const batch = await this.claim()
      if (batch.length === 0) break
      for (const message of batch) {
        const outcome = await this.deliver(message)
        result[outcome]++
      }
      if (batch.length < this.batchSize) break
    }
    return result
  }

  private async claim(): Promise<MessageOutbox[]> {
    const now = this.now()
    const leaseUntil = new Date(now.getTime() + this.leaseMs)
    const channels = Object.keys(this.options.deliverers) as MessageChannel[]
    if (channels.length === 0) return []
    return this.options.prisma.$queryRaw<MessageOutbox[]>`
      UPDATE message_outbox SET next_attempt_at = ${leaseUntil}
      WHERE id IN (
        SELECT id FROM message_outbox
        WHERE status = 'pending' AND next_attempt_at <= ${now} AND channel::text = ANY(${channels})
          AND scope IS NOT DISTINCT FROM ${this.scope}
        ORDER BY next_attempt_at
        LIMIT ${this.batchSize}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING *`
  }

  private async deliver(message: MessageOutbox): Promise<'sent' | 'retrying' | 'failed'> {
    const deliver = this.options.deliverers[message.channel]
    const attempts = message.attempts + 1
    try {
      if (!deliver) throw new Error(`no ${message.channel} provider`)
      await deliver(message)
      await this.options.prisma.messageOutbox.update({
        where: { id: message.id },
        data: { status: 'sent', attempts, sent_at: this.now(), last_error: null },
      })
      return 'sent'
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1000)
      const failed = attempts >= this.maxAttempts
      await this.options.prisma.messageOutbox.update({
        where: { id: message.id },
        data: {
          status: failed ? 'failed' : 'pending',
          attempts,
          last_error: reason,
          next_attempt_at: new Date(this.now().getTime() + (failed ? 0 : this.backoffMs(attempts))),
        },
      })
      this.options.log.warn(
        { message_id: message.id, channel: message.channel, attempts, err: reason },
        failed ? 'message delivery failed for good' : 'message delivery failed; will retry',
      )
      return failed ? 'failed' : 'retrying'
    }
  }
}
