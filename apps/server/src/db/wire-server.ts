import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto'
import net from 'node:net'
import type { PGlite } from '@electric-sql/pglite'

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102
const PROTOCOL_3 = 196608
const SCRAM_MECHANISM = 'SCRAM-SHA-256'
const SCRAM_ITERATIONS = 4096
/** the largest start-up or authentication message accepted before a client has authenticated */
const MAX_UNAUTHENTICATED_MESSAGE_BYTES = 10_000
/** startup parameter honoured by the wire server itself, as PostgreSQL honours the setting of that name */
const IDLE_TIMEOUT_PARAMETER = 'idle_in_transaction_session_timeout'
/** longest prepared statement or portal name PostgreSQL tells apart (NAMEDATALEN - 1) */
const MAX_NAME_BYTES = 63
/**
 * application_name of the connections that do background work (data loads, engine builds): their turns come after
 * those of every other waiting connection, so a request's short statements never queue behind a load's batches.
 */
export const BACKGROUND_APPLICATION_NAME = 'citrus-background'
/** Turns given to other connections in a row while a background connection waits, before it gets one. */
export const BACKGROUND_TURN_EVERY = 8

/** `set_config(name, value, true)`: a setting for the statement's transaction only, gone when it ends. */
const LOCAL_SET_CONFIG = /\bset_config\s*\(\s*'[^']*'\s*,\s*(?:'(?:[^']|'')*'|\$\d+|[\w.]+)\s*,\s*true\s*\)/gi

/**
 * Whether `sql` may leave the session's settings changed: SET (not SET LOCAL), RESET, DISCARD, or a set_config() that
 * is not transaction-local. A transaction-local set_config (the credits' and the request counters' asynchronous
 * commit) does not: the session is not read back after it.
 */
export function changesSessionSettings(sql: string): boolean {
  if (/(?:^|;)\s*(?:set(?!\s+local\b)|reset|discard)\b/i.test(sql)) return true
  return /\bset_config\s*\(/i.test(sql.replace(LOCAL_SET_CONFIG, ''))
}

const code = (letter: string) => letter.charCodeAt(0)
const PARSE = code('P')
const BIND = code('B')
const DESCRIBE = code('D')
const CLOSE = code('C')
const EXECUTE = code('E')
const QUERY = code('Q')
const SYNC = code('S')
const TERMINATE = code('X')
const COPY_DATA = code('d')
const COPY_FAIL = code('f')
const FLUSH = code('H')
const READY_FOR_QUERY = code('Z')
const READY_FOR_QUERY_BYTES = 6
const COPY_IN_RESPONSE = code('G')
const DATA_ROW = code('D')
const ERROR_RESPONSE = code('E')
const AUTHENTICATION = code('R')
const SASL_RESPONSE = code('p')
const AUTH_SASL = 10
const AUTH_SASL_CONTINUE = 11
const AUTH_SASL_FINAL = 12

/** ReadyForQuery's transaction status: Idle, in a Transaction block, in a failed (Error) one */
type TransactionStatus = 'I' | 'T' | 'E'

/** A COPY ... FROM STDIN whose data is collected until CopyDone, then run in one call (see handleCopy). */
interface PendingCopy {
  query: Buffer
  /** the CopyInResponse already sent to the client, skipped when the replay produces it again */
  response: Buffer
  messages: Buffer[]
  bytes: number
  /** the data outgrew the buffer: the COPY is failed and the rest of its data discarded */
  overflow: boolean
}

/** Where a connection is in the SCRAM-SHA-256 exchange (RFC 5802, RFC 7677, as PostgreSQL runs it). */
type Authentication =
  { step: 'initial' } | { step: 'final'; clientFirstBare: string; serverFirst: string; nonce: string; gs2Header: string } | { step: 'done' }

interface Connection {
  id: number
  socket: net.Socket
  buffer: Buffer
  started: boolean
  /** the start-up packet, forwarded to the backend once the client has authenticated */
  startupPacket: Buffer | null
  user: string
  auth: Authentication
  authTimer: NodeJS.Timeout | null
  closed: boolean
  /** a background connection (BACKGROUND_APPLICATION_NAME): served after the others that wait */
  background: boolean
  /** messages of one connection are processed strictly in order */
  chain: Promise<void>
  /** messages queued on the chain and not yet processed */
  pending: number
  /** the client's statement and portal names and the session-wide names they stand for */
  statements: Map<string, string>
  portals: Map<string, string>
  names: number
  /** the connection's settings that differ from the shared baseline: a value, or null for the default */
  settings: Map<string, string | null>
  /** the turn ran SQL that may change session settings (checked when the turn ends) */
  settingsTouched: boolean
  status: TransactionStatus
  idleTimeoutMs: number
  idleTimer: NodeJS.Timeout | null
  copy: PendingCopy | null
  /** after an error the wire server raised itself, the extended-protocol messages up to Sync are skipped */
  skipToSync: boolean
}

interface Waiter {
  connection: Connection
  resolve: () => void
}

interface BackendMessage {
  type: number
  body: Buffer
}

export interface WireServerOptions {
  /** the password every client must prove (SCRAM-SHA-256) before it reaches the database */
  password: string
  /** the only user name accepted (default postgres) */
  user?: string
  /** most client connections at once (default 64) */
  maxConnections?: number
  /**
   * How long (ms) a connection may hold the session inside a transaction (or an unfinished exchange) without
   * sending anything before it is rolled back and closed, as PostgreSQL's idle_in_transaction_session_timeout;
   * 0 = never. A client may ask for a shorter one with that startup parameter, never a longer one: while one
   * connection holds the session every other waits. Default 5 s.
   */
  idleInTransactionTimeoutMs?: number
  /** largest COPY ... FROM STDIN the server buffers (bytes, default 256 MiB) */
  maxCopyBytes?: number
  /** how long (ms) a client may take to authenticate before it is disconnected (default 10 s) */
  authenticationTimeoutMs?: number
}

export const DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS = 5_000
export const DEFAULT_AUTHENTICATION_TIMEOUT_MS = 10_000

/**
 * Serves one PGlite instance over the PostgreSQL wire protocol to many client connections
 * (docs/decisions/0011).
 *
 * Every client authenticates first with SCRAM-SHA-256 (the password is never sent; the server keeps only the
 * derived keys); a wrong user name or password is answered with 28P01 and the connection closed.
 *
 * PGlite has a single session, so clients take turns: a connection owns the session from its first message
 * until the backend answers ReadyForQuery with status Idle, so an extended-protocol exchange or a whole
 * transaction is never interleaved with another connection's messages. What outlives a turn is kept per
 * connection: named prepared statements and portals are renamed per connection (and closed when it goes),
 * session settings a connection changes are put back for the others at the end of its turn and re-applied at
 * the start of its next one, a transaction left idle past the timeout is rolled back and its connection
 * closed, and a client that disconnects inside a transaction is rolled back.
 */
export class PGliteWireServer {
  private readonly server: net.Server
  private readonly connections = new Set<Connection>()
  private owner: Connection | null = null
  private waiters: Waiter[] = []
  /** turns given to other connections in a row while a background one waited */
  private foregroundTurns = 0
  /** a grant of the free session is scheduled (grantSoon) */
  private granting = false
  private nextId = 1
  /** the connection whose Parse made the current unnamed statement (a simple Query drops it) */
  private unnamedStatementOwner: Connection | null = null
  /** session settings as the server found them; what other connections change is put back to these */
  private baseline = new Map<string, string>()
  /** custom (dotted) settings any connection has set: pg_settings does not list these placeholders */
  private readonly customSettings = new Set<string>()
  private readonly idleTimeoutMs: number
  private readonly maxCopyBytes: number
  private readonly authTimeoutMs: number
  private readonly user: string
  private readonly scram: { salt: string; storedKey: Buffer; serverKey: Buffer }

  constructor(
    private readonly db: PGlite,
    options: WireServerOptions,
  ) {
    if (!options.password) throw new Error('the wire server needs a password')
    this.server = net.createServer((socket) => this.accept(socket))
    this.server.maxConnections = options.maxConnections ?? 64
    this.idleTimeoutMs = options.idleInTransactionTimeoutMs ?? DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS
    this.maxCopyBytes = options.maxCopyBytes ?? 256 << 20
    this.authTimeoutMs = options.authenticationTimeoutMs ?? DEFAULT_AUTHENTICATION_TIMEOUT_MS
    this.user = options.user ?? 'postgres'
    // What PostgreSQL stores for a SCRAM password (RFC 5802 section 3): the password itself is not kept.
    const salt = randomBytes(16)
    const salted = pbkdf2Sync(options.password.normalize('NFKC'), salt, SCRAM_ITERATIONS, 32, 'sha256')
    this.scram = {
      salt: salt.toString('base64'),
      storedKey: sha256(hmac(salted, 'Client Key')),
      serverKey: hmac(salted, 'Server Key'),
    }
  }

  async listen(port: number, host: string): Promise<number> {
    this.baseline = await this.sessionSettings()
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        const address = this.server.address()
        resolve(typeof address === 'object' && address ? address.port : port)
      })
    })
  }

  async close(): Promise<void> {
    const connections = [...this.connections]
    for (const connection of connections) connection.socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
    // Let in-flight messages and clean-ups (queued when each socket's close event fires) finish before the
    // caller closes the database.
    for (;;) {
      const chains = connections.map((connection) => connection.chain)
      await Promise.allSettled(chains)
      if (connections.every((connection, i) => connection.closed && connection.chain === chains[i])) return
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  private accept(socket: net.Socket) {
    socket.setNoDelay(true)
    const connection: Connection = {
      id: this.nextId++,
      socket,
      buffer: Buffer.alloc(0),
      started: false,
      startupPacket: null,
      user: '',
      auth: { step: 'initial' },
      authTimer: null,
      closed: false,
      background: false,
      chain: Promise.resolve(),
      pending: 0,
      statements: new Map(),
      portals: new Map(),
      names: 0,
      settings: new Map(),
      settingsTouched: false,
      status: 'I',
      idleTimeoutMs: this.idleTimeoutMs,
      idleTimer: null,
      copy: null,
      skipToSync: false,
    }
    this.connections.add(connection)
    if (this.authTimeoutMs > 0) {
      connection.authTimer = setTimeout(() => socket.destroy(), this.authTimeoutMs)
      connection.authTimer.unref()
    }
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
        if (length < 8 || length > MAX_UNAUTHENTICATED_MESSAGE_BYTES) return void connection.socket.destroy()
        if (buffer.length < length) return
        const request = buffer.readInt32BE(4)
        const message = Buffer.from(buffer.subarray(0, length))
        connection.buffer = buffer.subarray(length)
        if (request === SSL_REQUEST || request === GSSENC_REQUEST) {
          connection.socket.write('N')
          continue
        }
        if (request === CANCEL_REQUEST) {
          // A single-session backend runs one statement at a time to its end: nothing to cancel.
          connection.socket.end()
          return
        }
        connection.started = true
        if (request !== PROTOCOL_3) {
          return void this.refuse(connection, '0A000', `unsupported frontend protocol ${request >>> 16}.${request & 0xffff}`)
        }
        connection.startupPacket = this.startup(connection, message)
        connection.socket.write(authentication(AUTH_SASL, Buffer.from(`${SCRAM_MECHANISM}\0\0`)))
        continue
      }
      if (buffer.length < 5) return
      const total = 1 + buffer.readInt32BE(1)
      if (connection.auth.step !== 'done' && (total < 5 || total > MAX_UNAUTHENTICATED_MESSAGE_BYTES))
        return void connection.socket.destroy()
      if (buffer.length < total) return
      const message = Buffer.from(buffer.subarray(0, total))
      connection.buffer = buffer.subarray(total)
      if (connection.auth.step !== 'done') {
        if (!this.authenticate(connection, message)) return
        continue
      }
      this.enqueue(connection, message)
    }
  }

  /** Takes the wire server's own parameter out of the startup packet. */
  private startup(connection: Connection, message: Buffer): Buffer {
    const fields: string[] = []
    for (let offset = 8; offset < message.length - 1;) {
      const [value, next] = cString(message, offset)
      fields.push(value)
      offset = next
    }
    const kept: string[] = []
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === IDLE_TIMEOUT_PARAMETER) {
        const ms = parseDuration(fields[i + 1]!)
        // stricter only: the server's bound protects every other connection
        if (ms !== null && ms > 0 && (this.idleTimeoutMs <= 0 || ms < this.idleTimeoutMs)) connection.idleTimeoutMs = ms
      } else {
        if (fields[i] === 'user') connection.user = fields[i + 1]!
        if (fields[i] === 'application_name') connection.background = fields[i + 1] === BACKGROUND_APPLICATION_NAME
        kept.push(fields[i]!, fields[i + 1]!)
      }
    }
    const body = Buffer.from(kept.map((field) => `${field}\0`).join('') + '\0')
    const packet = Buffer.alloc(8 + body.length)
    packet.writeInt32BE(packet.length, 0)
    packet.writeInt32BE(message.readInt32BE(4), 4)
    body.copy(packet, 8)
    return packet
  }

  // ---- authentication (SCRAM-SHA-256) ----------------------------------------------------------

  /** One SASL message of the exchange; false when the connection was refused. */
  private authenticate(connection: Connection, message: Buffer): boolean {
    const auth = connection.auth
    if (message[0] !== SASL_RESPONSE) return this.refuse(connection, '28P01', this.authFailure(connection))
    try {
      if (auth.step === 'initial') {
        const [mechanism, afterMechanism] = cString(message, 5)
        // a cleartext password reads as an unknown mechanism: refused as a failed password
        if (mechanism !== SCRAM_MECHANISM) return this.refuse(connection, '28P01', this.authFailure(connection))
        const length = message.readInt32BE(afterMechanism)
        const clientFirst = message.toString('utf8', afterMechanism + 4, afterMechanism + 4 + Math.max(0, length))
        // gs2 header: no channel binding ("n") or a client that could bind but sees we offer none ("y")
        const header = /^([ny]),(?:a=[^,]*)?,/.exec(clientFirst)
        if (!header) return this.refuse(connection, '08P01', 'malformed SCRAM message')
        const clientFirstBare = clientFirst.slice(header[0].length)
        const clientNonce = /(?:^|,)r=([\x21-\x2b\x2d-\x7e]+)(?:,|$)/.exec(clientFirstBare)?.[1]
        if (!clientNonce) return this.refuse(connection, '08P01', 'malformed SCRAM message')
        const nonce = clientNonce + randomBytes(18).toString('base64')
        const serverFirst = `r=${nonce},s=${this.scram.salt},i=${SCRAM_ITERATIONS}`
        connection.auth = { step: 'final', clientFirstBare, serverFirst, nonce, gs2Header: header[0] }
        connection.socket.write(authentication(AUTH_SASL_CONTINUE, Buffer.from(serverFirst)))
        return true
      }
      if (auth.step !== 'final') return this.refuse(connection, '08P01', 'unexpected authentication message')
      const clientFinal = message.toString('utf8', 5)
      const proofAt = clientFinal.lastIndexOf(',p=')
      if (proofAt < 0) return this.refuse(connection, '08P01', 'malformed SCRAM message')
      const withoutProof = clientFinal.slice(0, proofAt)
      const proof = Buffer.from(clientFinal.slice(proofAt + 3), 'base64')
      const [binding, nonce] = withoutProof.split(',')
      if (binding !== `c=${Buffer.from(auth.gs2Header).toString('base64')}` || nonce !== `r=${auth.nonce}`) {
        return this.refuse(connection, '08P01', 'malformed SCRAM message')
      }
      const authMessage = `${auth.clientFirstBare},${auth.serverFirst},${withoutProof}`
      const signature = hmac(this.scram.storedKey, authMessage)
      const valid =
        proof.length === signature.length &&
        timingSafeEqual(sha256(xor(proof, signature)), this.scram.storedKey) &&
        connection.user === this.user
      if (!valid) return this.refuse(connection, '28P01', this.authFailure(connection))
      connection.auth = { step: 'done' }
      if (connection.authTimer) clearTimeout(connection.authTimer)
      connection.authTimer = null
      connection.socket.write(
        authentication(AUTH_SASL_FINAL, Buffer.from(`v=${hmac(this.scram.serverKey, authMessage).toString('base64')}`)),
      )
      // the backend's answer to the start-up packet carries AuthenticationOk and the session's parameters
      this.enqueue(connection, connection.startupPacket!)
      connection.startupPacket = null
      return true
    } catch {
      return this.refuse(connection, '08P01', 'malformed SCRAM message')
    }
  }

  private authFailure(connection: Connection): string {
    return `password authentication failed for user "${connection.user}"`
  }

  /** Answers a FATAL error and closes the connection before it reached the database. */
  private refuse(connection: Connection, sqlState: string, text: string): false {
    connection.closed = true
    connection.buffer = Buffer.alloc(0)
    connection.socket.end(errorResponse('FATAL', sqlState, text))
    return false
  }

  private enqueue(connection: Connection, message: Buffer) {
    connection.pending++
    this.clearIdleTimer(connection)
    connection.chain = connection.chain
      .then(async () => {
        connection.pending--
        if (message[0] === TERMINATE) connection.socket.end()
        else await this.process(connection, message)
        this.armIdleTimer(connection)
      })
      .catch(() => {
        connection.socket.destroy()
      })
  }

  private async process(connection: Connection, message: Buffer) {
    if (connection.closed) return
    await this.acquire(connection)
    if (connection.closed) return
    if (connection.copy) return this.continueCopy(connection, message)
    if (connection.skipToSync) {
      if (message[0] !== SYNC) return
      connection.skipToSync = false
    }
    const rewritten = this.rewrite(connection, message)
    if (!rewritten) return
    if (rewritten[0] === QUERY && isCopyFromStdin(cString(rewritten, 5)[0])) return this.startCopy(connection, rewritten)
    await this.forward(connection, rewritten)
  }

  /**
   * Runs client messages on the backend, streams the answer to the client and ends the turn on Idle.
   *
   * PGlite ends every call with ReadyForQuery if a statement failed, even inside an extended-protocol exchange
   * where only Sync may answer it (it keeps skipping the exchange's messages up to Sync, as it should). Passed
   * on, that early ReadyForQuery would end the client's query and, later, the Sync's one the next query; so the
   * answer to any message but Query and Sync loses a trailing ReadyForQuery.
   */
  private async forward(connection: Connection, message: Buffer, skip = 0) {
    const scanner = new BackendScanner()
    const answersReady = message[0] === QUERY || message[0] === SYNC || message[0] === 0 /* startup */
    let skipping = skip
    let held = Buffer.alloc(0)
    const send = (bytes: Uint8Array) => {
      if (bytes.length > 0 && !connection.closed) connection.socket.write(bytes)
    }
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(new Uint8Array(message.buffer, message.byteOffset, message.length), {
        onRawData: (view: Uint8Array) => {
          if (view.length === 0) return
          // A view of PGlite's WebAssembly memory, which its next output overwrites: a socket that cannot send
          // it at once keeps a reference, so what is sent must be a copy.
          const data = Buffer.from(view)
          scanner.scan(data)
          let bytes: Uint8Array = data
          if (skipping > 0) {
            const skipped = Math.min(skipping, bytes.length)
            skipping -= skipped
            bytes = bytes.subarray(skipped)
          }
          if (answersReady) return send(bytes)
          // hold back the last 6 bytes (the size of a ReadyForQuery) until the call is over
          const all = held.length === 0 ? bytes : Buffer.concat([held, bytes])
          send(all.subarray(0, Math.max(0, all.length - READY_FOR_QUERY_BYTES)))
          held = Buffer.from(all.subarray(Math.max(0, all.length - READY_FOR_QUERY_BYTES)))
        },
      }),
    )
    if (!answersReady) {
      if (!(scanner.lastType === READY_FOR_QUERY && held.length === READY_FOR_QUERY_BYTES && held[0] === READY_FOR_QUERY)) send(held)
      return
    }
    if (scanner.status) {
      connection.status = scanner.status
      if (scanner.status === 'I' && scanner.lastType === READY_FOR_QUERY) await this.endTurn(connection)
    }
  }

  // ---- statement and portal names ------------------------------------------------------------

  /**
   * Renames the connection's named statements and portals into its own namespace, and notes SQL that may
   * change session settings. Returns null when the message is answered here.
   */
  private rewrite(connection: Connection, message: Buffer): Buffer | null {
    switch (message[0]) {
      case PARSE: {
        const [name, afterName] = cString(message, 5)
        const [sql] = cString(message, afterName)
        if (isCopyFromStdin(sql)) {
          this.fail(
            connection,
            '0A000',
            'COPY FROM STDIN through the extended query protocol is not supported by the embedded database; use a simple query',
          )
          return null
        }
        if (this.changesSettings(sql)) connection.settingsTouched = true
        if (name === '') {
          this.unnamedStatementOwner = connection
          return message
        }
        const local = connection.statements.get(name) ?? this.localName(connection, name)
        connection.statements.set(name, local)
        return replaceNames(message, 5, [local])
      }
      case BIND: {
        const [portal, afterPortal] = cString(message, 5)
        const [statement] = cString(message, afterPortal)
        return replaceNames(message, 5, [this.portalName(connection, portal, true), this.statementName(connection, statement)])
      }
      case DESCRIBE:
      case CLOSE: {
        const kind = String.fromCharCode(message[5]!)
        const [name] = cString(message, 6)
        const local = kind === 'S' ? this.statementName(connection, name) : this.portalName(connection, name, false)
        if (message[0] === CLOSE) (kind === 'S' ? connection.statements : connection.portals).delete(name)
        return replaceNames(message, 6, [local])
      }
      case EXECUTE: {
        const [portal] = cString(message, 5)
        return replaceNames(message, 5, [this.portalName(connection, portal, false)])
      }
      case QUERY: {
        // A simple query drops the unnamed statement.
        this.unnamedStatementOwner = null
        if (this.changesSettings(cString(message, 5)[0])) connection.settingsTouched = true
        return message
      }
      default:
        return message
    }
  }

  private statementName(connection: Connection, name: string): string {
    if (name !== '') return connection.statements.get(name) ?? this.localName(connection, name)
    // The unnamed statement of another connection (one that did not Parse it in this turn) is not this one's.
    return this.unnamedStatementOwner === connection ? '' : `@${connection.id}#unnamed`
  }

  private portalName(connection: Connection, name: string, create: boolean): string {
    if (name === '') return ''
    const known = connection.portals.get(name)
    if (known !== undefined) return known
    const local = this.localName(connection, name)
    if (create) connection.portals.set(name, local)
    return local
  }

  /** `name@id`, or a numbered name when that would be too long for PostgreSQL to tell apart */
  private localName(connection: Connection, name: string): string {
    const local = `${name}@${connection.id}`
    return Buffer.byteLength(local) <= MAX_NAME_BYTES ? local : `@${connection.id}#${++connection.names}`
  }

  /** Answers an error raised by the wire server itself, as the backend would within an exchange. */
  private fail(connection: Connection, sqlState: string, text: string) {
    connection.socket.write(errorResponse('ERROR', sqlState, text))
    connection.skipToSync = true
  }

  // ---- turns -----------------------------------------------------------------------------------

  private async acquire(connection: Connection): Promise<void> {
    if (this.owner === connection) return
    // the session is free and nobody waits: a request's statement takes it at once; a background one waits for the
    // grant, which comes after the sockets were read (a request's statement that arrived meanwhile goes first)
    if (this.owner === null && this.waiters.length === 0 && !this.granting && !connection.background) this.owner = connection
    else
      await new Promise<void>((resolve) => {
        this.waiters.push({ connection, resolve })
        this.grantSoon()
      })
    if (connection.settings.size > 0 && !connection.closed) await this.applySettings(connection.settings)
  }

  private release(connection: Connection) {
    if (this.owner !== connection) return
    this.clearIdleTimer(connection)
    this.owner = null
    this.grantSoon()
  }

  /**
   * Gives the free session to the next waiter once the event loop has read the sockets (setImmediate runs after the
   * poll phase): PGlite runs a statement synchronously on this thread, so the messages sent meanwhile are read only
   * then, and a background connection's next message, already queued, would otherwise take the session first.
   */
  private grantSoon() {
    if (this.granting) return
    this.granting = true
    setImmediate(() => {
      this.granting = false
      if (this.owner !== null) return
      const next = this.nextWaiter()
      if (!next) return
      this.owner = next.connection
      next.resolve()
    })
  }

  /**
   * The waiter whose turn comes next: the first that is not a background connection, unless background ones have
   * waited through BACKGROUND_TURN_EVERY turns of the others (a load is slowed by requests, never stopped). Each
   * kind keeps its arrival order.
   */
  private nextWaiter(): Waiter | undefined {
    const background = this.waiters.findIndex((waiter) => waiter.connection.background)
    const foreground = this.waiters.findIndex((waiter) => !waiter.connection.background)
    let index = foreground
    if (background >= 0 && (foreground < 0 || this.foregroundTurns >= BACKGROUND_TURN_EVERY)) index = background
    if (index < 0) return undefined
    this.foregroundTurns = background >= 0 && index !== background ? this.foregroundTurns + 1 : 0
    return this.waiters.splice(index, 1)[0]
  }

  /** The session is Idle after the connection's turn: keep its settings for later and give the session back. */
  private async endTurn(connection: Connection) {
    if (connection.settingsTouched) {
      connection.settingsTouched = false
      connection.settings = this.difference(await this.sessionSettings())
    }
    if (connection.settings.size > 0) await this.restoreBaseline(connection.settings)
    this.release(connection)
  }

  private armIdleTimer(connection: Connection) {
    if (this.owner !== connection || connection.pending > 0 || connection.closed || connection.idleTimeoutMs <= 0) return
    this.clearIdleTimer(connection)
    connection.idleTimer = setTimeout(() => this.expire(connection), connection.idleTimeoutMs)
    connection.idleTimer.unref()
  }

  private clearIdleTimer(connection: Connection) {
    if (connection.idleTimer) clearTimeout(connection.idleTimer)
    connection.idleTimer = null
  }

  /** The owner sat idle inside a transaction for too long: roll it back and close the connection. */
  private expire(connection: Connection) {
    connection.idleTimer = null
    if (this.owner !== connection || connection.pending > 0 || connection.closed) return
    connection.chain = connection.chain.then(async () => {
      if (connection.closed) return
      connection.closed = true
      await this.rollback()
      connection.socket.end(errorResponse('FATAL', '25P03', 'terminating connection due to idle-in-transaction timeout'))
    })
  }

  /** Ends an unfinished exchange (Sync) and any transaction of the session. */
  private async rollback() {
    await this.internal(Buffer.concat([message(SYNC, Buffer.alloc(0)), query('ROLLBACK')]))
  }

  private disconnect(connection: Connection) {
    connection.closed = true
    this.clearIdleTimer(connection)
    if (connection.authTimer) clearTimeout(connection.authTimer)
    this.connections.delete(connection)
    connection.chain = connection.chain.then(async () => {
      const holds = this.owner === connection
      const statements = [...connection.statements.values()]
      connection.statements.clear()
      if (!holds && statements.length === 0) return
      if (!holds) await this.acquire(connection)
      try {
        // A client that vanished inside a transaction must not leave the shared session in it.
        if (holds) await this.rollback()
        connection.copy = null
        if (statements.length > 0) {
          const closes = statements.map((name) => message(CLOSE, Buffer.concat([Buffer.from('S'), Buffer.from(`${name}\0`)])))
          await this.internal(Buffer.concat([...closes, message(SYNC, Buffer.alloc(0))]))
        }
        if (holds && connection.settings.size > 0) await this.restoreBaseline(connection.settings)
      } finally {
        this.release(connection)
      }
    })
  }

  // ---- settings --------------------------------------------------------------------------------

  /** SET (not SET LOCAL), RESET, DISCARD or set_config(): the session's settings may differ afterwards. */
  private changesSettings(sql: string): boolean {
    if (!changesSessionSettings(sql)) return false
    for (const match of sql.matchAll(/\bset_config\s*\(\s*'([^']+)'|(?:^|;)\s*set\s+(?:session\s+)?([\w$]+\.[\w$]+)/gi)) {
      const name = (match[1] ?? match[2])!.toLowerCase()
      if (name.includes('.')) this.customSettings.add(name)
    }
    return true
  }

  private async sessionSettings(): Promise<Map<string, string>> {
    const custom = [...this.customSettings].map(literal).join(', ')
    const answer = await this.internal(
      query(
        "SELECT name, setting FROM pg_settings WHERE source = 'session'" +
          (custom
            ? ` UNION ALL SELECT n, current_setting(n, true) FROM unnest(ARRAY[${custom}]::text[]) AS n WHERE current_setting(n, true) <> ''`
            : ''),
      ),
    )
    const settings = new Map<string, string>()
    for (const row of dataRows(answer)) settings.set(row[0]!, row[1] ?? '')
    return settings
  }

  /** What a connection's session settings change relative to the baseline. */
  private difference(current: Map<string, string>): Map<string, string | null> {
    const changed = new Map<string, string | null>()
    for (const [name, value] of current) if (this.baseline.get(name) !== value) changed.set(name, value)
    for (const name of this.baseline.keys()) if (!current.has(name)) changed.set(name, null)
    return changed
  }

  private async applySettings(settings: Map<string, string | null>) {
    const values = [...settings].filter((entry): entry is [string, string] => entry[1] !== null)
    const defaults: string[] = []
    for (const [name, value] of settings) {
      if (value !== null) continue
      if (this.customSettings.has(name)) values.push([name, ''])
      else defaults.push(name)
    }
    await this.setSettings(values, defaults)
  }

  private async restoreBaseline(settings: Map<string, string | null>) {
    const values: [string, string][] = []
    const defaults: string[] = []
    for (const name of settings.keys()) {
      const value = this.baseline.get(name) ?? (this.customSettings.has(name) ? '' : undefined)
      if (value === undefined) defaults.push(name)
      else values.push([name, value])
    }
    await this.setSettings(values, defaults)
  }

  private async setSettings(values: [string, string][], defaults: string[]) {
    const statements: string[] = []
    if (values.length > 0) {
      statements.push(
        `SELECT set_config(n, v, false) FROM (VALUES ${values.map(([name, value]) => `(${literal(name)}, ${literal(value)})`).join(', ')}) AS s(n, v)`,
      )
    }
    if (defaults.length > 0) {
      statements.push(`SELECT set_config(name, reset_val, false) FROM pg_settings WHERE name IN (${defaults.map(literal).join(', ')})`)
    }
    if (statements.length > 0) await this.internal(query(statements.join('; ')))
  }

  // ---- COPY FROM STDIN -------------------------------------------------------------------------

  /**
   * PGlite reads COPY data from the message it is running; a COPY whose data arrives in later calls reads
   * end-of-file and the backend exits (PGlite is then unusable). So the client's data is collected and the
   * whole COPY runs in one call. The client waits for CopyInResponse before it sends data: that answer comes
   * from a probe that starts the same COPY and fails it at once (in a savepoint inside a transaction block).
   */
  private async startCopy(connection: Connection, sql: Buffer) {
    this.unnamedStatementOwner = null
    if (connection.status === 'E') return this.forward(connection, sql)
    const inBlock = connection.status === 'T'
    const probe = await this.internal(
      Buffer.concat([
        ...(inBlock ? [query('SAVEPOINT wire_server_copy_probe')] : []),
        sql,
        message(COPY_FAIL, Buffer.from('probe\0')),
        ...(inBlock ? [query('ROLLBACK TO SAVEPOINT wire_server_copy_probe; RELEASE SAVEPOINT wire_server_copy_probe')] : []),
      ]),
    )
    const response = probe.find((m) => m.type === COPY_IN_RESPONSE)
    // Not a COPY that waits for data after all (an error, for one): run it as it is.
    if (!response) return this.forward(connection, sql)
    const bytes = message(COPY_IN_RESPONSE, response.body)
    connection.copy = { query: sql, response: bytes, messages: [], bytes: 0, overflow: false }
    connection.socket.write(bytes)
  }

  private async continueCopy(connection: Connection, incoming: Buffer) {
    const copy = connection.copy!
    const type = incoming[0]
    if (type === COPY_DATA) {
      if (copy.overflow) return
      copy.bytes += incoming.length
      if (copy.bytes > this.maxCopyBytes) {
        copy.overflow = true
        copy.messages = []
      } else copy.messages.push(incoming)
      return
    }
    if (type === FLUSH || type === SYNC) return // ignored during COPY, as the backend does
    // CopyDone, CopyFail or anything else ends the COPY; the backend judges it.
    connection.copy = null
    const end = copy.overflow
      ? message(COPY_FAIL, Buffer.from(`COPY data exceeds the embedded database's buffer of ${this.maxCopyBytes >> 20} MiB\0`))
      : incoming
    await this.forward(connection, Buffer.concat([copy.query, ...copy.messages, end]), copy.response.length)
  }

  // ---- the wire server's own statements --------------------------------------------------------

  /** Runs messages on the session for the wire server itself; the answer goes nowhere else. */
  private async internal(messages: Buffer): Promise<BackendMessage[]> {
    const chunks: Buffer[] = []
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(new Uint8Array(messages.buffer, messages.byteOffset, messages.length), {
        onRawData: (data: Uint8Array) => {
          if (data.length > 0) chunks.push(Buffer.from(data))
        },
      }),
    )
    return splitMessages(Buffer.concat(chunks))
  }
}

/** Follows message boundaries in the backend's output stream, remembering the last message and status. */
class BackendScanner {
  private readonly header = Buffer.alloc(5)
  private headerBytes = 0
  private remaining = 0
  lastType = 0
  status: TransactionStatus | null = null

  scan(chunk: Uint8Array) {
    let i = 0
    while (i < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - i)
        if (this.lastType === READY_FOR_QUERY && this.remaining === 1) this.status = String.fromCharCode(chunk[i]!) as TransactionStatus
        i += take
        this.remaining -= take
        continue
      }
      this.header[this.headerBytes++] = chunk[i++]!
      if (this.headerBytes === 5) {
        this.lastType = this.header[0]!
        this.remaining = this.header.readInt32BE(1) - 4
        this.headerBytes = 0
      }
    }
  }
}

function splitMessages(data: Buffer): BackendMessage[] {
  const messages: BackendMessage[] = []
  for (let offset = 0; offset + 5 <= data.length;) {
    const length = data.readInt32BE(offset + 1)
    messages.push({ type: data[offset]!, body: data.subarray(offset + 5, offset + 1 + length) })
    offset += 1 + length
  }
  return messages
}

function dataRows(messages: BackendMessage[]): (string | null)[][] {
  const errors = messages.filter((m) => m.type === ERROR_RESPONSE)
  if (errors.length > 0) throw new Error(`embedded database: ${errorText(errors[0]!.body)}`)
  return messages
    .filter((m) => m.type === DATA_ROW)
    .map(({ body }) => {
      const values: (string | null)[] = []
      let offset = 2
      for (let column = 0; column < body.readInt16BE(0); column++) {
        const length = body.readInt32BE(offset)
        offset += 4
        if (length < 0) values.push(null)
        else {
          values.push(body.toString('utf8', offset, offset + length))
          offset += length
        }
      }
      return values
    })
}

function errorText(body: Buffer): string {
  for (let offset = 0; offset < body.length && body[offset] !== 0;) {
    const field = String.fromCharCode(body[offset]!)
    const [value, next] = cString(body, offset + 1)
    if (field === 'M') return value
    offset = next
  }
  return 'unknown error'
}

function cString(buffer: Buffer, offset: number): [string, number] {
  const end = buffer.indexOf(0, offset)
  if (end < 0) throw new Error('malformed message: unterminated string')
  return [buffer.toString('utf8', offset, end), end + 1]
}

/** The message with the consecutive names starting at `offset` replaced. */
function replaceNames(original: Buffer, offset: number, names: string[]): Buffer {
  let end = offset
  for (let i = 0; i < names.length; i++) end = cString(original, end)[1]
  const body = Buffer.concat([original.subarray(5, offset), Buffer.from(names.map((name) => `${name}\0`).join('')), original.subarray(end)])
  return message(original[0]!, body)
}

function message(type: number, body: Buffer): Buffer {
  const bytes = Buffer.alloc(5 + body.length)
  bytes[0] = type
  bytes.writeInt32BE(4 + body.length, 1)
  body.copy(bytes, 5)
  return bytes
}

function authentication(kind: number, data: Buffer): Buffer {
  const body = Buffer.alloc(4 + data.length)
  body.writeInt32BE(kind, 0)
  data.copy(body, 4)
  return message(AUTHENTICATION, body)
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest()
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest()
}

function xor(a: Buffer, b: Buffer): Buffer {
  return Buffer.from(a.map((byte, i) => byte ^ b[i]!))
}

function query(sql: string): Buffer {
  return message(QUERY, Buffer.from(`${sql}\0`))
}

function errorResponse(severity: 'ERROR' | 'FATAL', sqlState: string, text: string): Buffer {
  return message(ERROR_RESPONSE, Buffer.from(`S${severity}\0V${severity}\0C${sqlState}\0M${text}\0\0`))
}

/** A string literal that means the same whatever standard_conforming_strings says. */
function literal(value: string): string {
  return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
}

function isCopyFromStdin(sql: string): boolean {
  return /^\s*copy\b[^;]*\bfrom\s+stdin\b/i.test(sql)
}

/** A duration as PostgreSQL reads it for a millisecond setting: a number of ms, or with a unit. */
function parseDuration(value: string): number | null {
  const match = /^\s*(\d+)\s*(ms|s|min|h)?\s*$/.exec(value)
  if (!match) return null
  const factor = { ms: 1, s: 1000, min: 60_000, h: 3_600_000 }[match[2] ?? 'ms'] ?? 1
  return Number(match[1]) * factor
}
