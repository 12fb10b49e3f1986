import net from 'node:net'
import type { PGlite } from '@electric-sql/pglite'

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
/** ReadyForQuery with transaction status Idle: 'Z', length 5, 'I' */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49])

interface Connection {
  id: number
  socket: net.Socket
  buffer: Buffer
  started: boolean
  closed: boolean
  /** messages of one connection are processed strictly in order */
  chain: Promise<void>
}

interface Waiter {
  connection: Connection
  resolve: () => void
}

/**
 * Serves one PGlite instance over the PostgreSQL wire protocol to many client connections.
 *
 * PGlite has a single session, so clients must take turns. A connection owns the session from its
 * first message until the backend answers ReadyForQuery with status Idle: an extended-protocol
 * exchange (Parse, Bind, Execute, ... Sync), a COPY, or a whole transaction is never interleaved with
 * another connection's messages. (pglite-socket 0.2.11 interleaves at message granularity, which
 * mixes up unnamed statements and transactions of concurrent connections: docs/decisions/0001.)
 */
export class PGliteWireServer {
  private readonly server: net.Server
  private readonly connections = new Set<Connection>()
  private owner: Connection | null = null
  private waiters: Waiter[] = []
  private nextId = 1

  constructor(
    private readonly db: PGlite,
    options: { maxConnections?: number } = {},
  ) {
    this.server = net.createServer((socket) => this.accept(socket))
    this.server.maxConnections = options.maxConnections ?? 64
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        const address = this.server.address()
        resolve(typeof address === 'object' && address ? address.port : port)
      })
    })
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
    // Let in-flight messages finish before the caller closes the database.
    await Promise.allSettled([...this.connections].map((connection) => connection.chain))
  }

  private accept(socket: net.Socket) {
    socket.setNoDelay(true)
    const connection: Connection = { id: this.nextId++, socket, buffer: Buffer.alloc(0), started: false, closed: false, chain: Promise.resolve() }
    this.connections.add(connection)
    socket.on('data', (chunk: Buffer) => this.receive(connection, chunk))
    socket.on('error', () => socket.destroy())
    socket.on('close', () => this.disconnect(connection))
  }

  /** Splits the byte stream into whole protocol messages and queues them in order. */
  private receive(connection: Connection, chunk: Buffer) {
    connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk])
    for (;;) {
      const buffer = connection.buffer
      if (!connection.started) {
        if (buffer.length < 8) return
        const length = buffer.readInt32BE(0)
        if (buffer.length < length) return
        const code = buffer.readInt32BE(4)
        const message = buffer.subarray(0, length)
        connection.buffer = buffer.subarray(length)
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          connection.socket.write('N')
          continue
        }
        if (code === CANCEL_REQUEST) {
          // Not supported by a single-session backend; the client just stops waiting.
          connection.socket.end()
          return
        }
        connection.started = true
        this.enqueue(connection, Buffer.from(message), false)
        continue
      }
      if (buffer.length < 5) return
      const total = 1 + buffer.readInt32BE(1)
      if (buffer.length < total) return
      const message = Buffer.from(buffer.subarray(0, total))
      connection.buffer = buffer.subarray(total)
      this.enqueue(connection, message, message[0] === 0x58 /* 'X' Terminate */)
    }
  }

  private enqueue(connection: Connection, message: Buffer, terminate: boolean) {
    connection.chain = connection.chain
      .then(async () => {
        if (terminate) connection.socket.end()
        else await this.process(connection, message)
      })
      .catch(() => {
        connection.socket.destroy()
      })
  }

  private async process(connection: Connection, message: Buffer) {
    if (connection.closed) return
    await this.acquire(connection)
    if (connection.closed) return this.release(connection)
    let tail = Buffer.alloc(0)
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(new Uint8Array(message), {
        onRawData: (data: Uint8Array) => {
          if (data.length === 0) return
          if (!connection.closed) connection.socket.write(data)
          const bytes = Buffer.from(data)
          tail = bytes.length >= READY_IDLE.length ? bytes.subarray(bytes.length - READY_IDLE.length) : Buffer.concat([tail, bytes]).subarray(-READY_IDLE.length)
        },
      }),
    )
    if (tail.equals(READY_IDLE)) this.release(connection)
  }

  private acquire(connection: Connection): Promise<void> {
    if (this.owner === connection) return Promise.resolve()
    if (this.owner === null) {
      this.owner = connection
      return Promise.resolve()
    }
    return new Promise((resolve) => this.waiters.push({ connection, resolve }))
  }

  private release(connection: Connection) {
    if (this.owner !== connection) return
    const next = this.waiters.shift()
    this.owner = next?.connection ?? null
    next?.resolve()
  }

  private disconnect(connection: Connection) {
    connection.closed = true
    this.connections.delete(connection)
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.connection !== connection) return true
      waiter.resolve()
      return false
    })
    connection.chain = connection.chain.then(async () => {
      if (this.owner !== connection) return
      // A client that vanished inside a transaction must not leave the shared session in it.
      if (this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined)
      this.release(connection)
    })
  }
}
