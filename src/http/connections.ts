/**
 * Connection slots, shared between client addresses, for every server this project starts.
 *
 * Node alone lets one client take every slot: `server.maxConnections` refuses any socket past the
 * cap, whoever holds the others, and a socket that never sends a byte is never timed out (Node's
 * `headersTimeout` is checked only for a request that has begun, per Node's http docs). So:
 *
 * - an address (an IPv6 client by its /64, the block one subscriber usually gets) holds at most
 *   `maxConnectionsPerAddress` sockets; past it, its own oldest idle socket makes room, or the new
 *   one is closed at once;
 * - at `maxConnections`, the oldest idle socket of the address holding the most goes (of any
 *   address if that one has none idle), so a new client, a health probe included, still gets in
 *   while idle sockets take the slots; only when every socket is busy is a new one refused;
 * - a socket that has sent nothing `firstByteTimeoutMs` after it connected is closed (one that sent
 *   part of a head is left to Node's `headersTimeout`, which answers it 408).
 *
 * "Idle": no request yet and no byte read, or the answer to its latest request is written. What it
 * costs: a timer and map entries per connection, and one map lookup per request (`requestStarted`).
 * Node's own cap is left unset: it refuses before any listener sees the socket, so nothing could
 * be evicted for it.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** A socket that has read nothing this long after connecting is closed. */
  firstByteTimeoutMs: number;
}

export interface ConnectionStats {
  open: number;
  /** Sockets closed at connect: their address (or every slot) was full of busy sockets. */
  refused: number;
  /** Idle sockets closed to make room for a new one. */
  evicted: number;
  /** Sockets closed for sending nothing within `firstByteTimeoutMs`. */
  silent: number;
}

interface Conn {
  readonly socket: Socket;
  readonly peers: Set<Conn>;
  readonly key: string;
  timer: NodeJS.Timeout | undefined;
  /** The answer to the latest request on this socket (none before the first). */
  last: ServerResponse | undefined;
}

export class ConnectionGuard {
  private readonly conns = new Map<Socket, Conn>();
  /** Sockets by address key, each set in connection order (oldest first). */
  private readonly byAddress = new Map<string, Set<Conn>>();
  private refused = 0;
  private evicted = 0;
  private silent = 0;

  constructor(private readonly limits: Readonly<ConnectionLimits>) {}

  /** Admits (or refuses) each socket the server accepts. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  stats(): ConnectionStats {
    return { open: this.conns.size, refused: this.refused, evicted: this.evicted, silent: this.silent };
  }

  /** A request arrived on `socket`, answered by `res` (the per-request cost: one lookup). */
  requestStarted(socket: Socket, res: ServerResponse): void {
    const c = this.conns.get(socket);
    if (c === undefined) return;
    c.last = res;
    if (c.timer !== undefined) {
      clearTimeout(c.timer);
      c.timer = undefined;
    }
  }

  private admit(socket: Socket): void {
    const key = addressKey(socket.remoteAddress);
    const { maxConnections, maxConnectionsPerAddress, firstByteTimeoutMs } = this.limits;
    const own = this.byAddress.get(key);
    if (own !== undefined && own.size >= maxConnectionsPerAddress && !this.evictIdle(own)) return this.refuse(socket);
    if (this.conns.size >= maxConnections && !this.evictForNewcomer()) return this.refuse(socket);
    let peers = this.byAddress.get(key);
    if (peers === undefined) this.byAddress.set(key, (peers = new Set()));
    const conn: Conn = { socket, peers, key, timer: undefined, last: undefined };
    conn.timer = setTimeout(() => this.firstByteDue(conn), firstByteTimeoutMs);
    conn.timer.unref();
    peers.add(conn);
    this.conns.set(socket, conn);
    socket.once('close', () => this.forget(conn));
  }

  private firstByteDue(conn: Conn): void {
    conn.timer = undefined;
    // After the event loop's next I/O phase: when the loop was stalled past the timeout, bytes
    // already waiting in the kernel are read before this verdict (timers run before I/O polling).
    setImmediate(() => {
      if (this.conns.get(conn.socket) !== conn || conn.last !== undefined || conn.socket.bytesRead > 0) return;
      this.silent++;
      this.drop(conn);
    });
  }

  /** Room at the global cap: an idle socket of the heaviest address, else the oldest idle one. */
  private evictForNewcomer(): boolean {
    let heaviest: Set<Conn> | undefined;
    for (const peers of this.byAddress.values()) if (heaviest === undefined || peers.size > heaviest.size) heaviest = peers;
    if (heaviest !== undefined && this.evictIdle(heaviest)) return true;
    return this.evictIdle(this.conns.values());
  }

  private evictIdle(conns: Iterable<Conn>): boolean {
    for (const c of conns) {
      if (!isIdle(c)) continue;
      this.evicted++;
      this.drop(c);
      return true;
    }
    return false;
  }

  private refuse(socket: Socket): void {
    this.refused++;
    socket.destroy();
  }

  /** Frees the slot now (the socket's 'close' comes later) and closes the socket. */
  private drop(conn: Conn): void {
    this.forget(conn);
    conn.socket.destroy();
  }

  private forget(conn: Conn): void {
    if (this.conns.get(conn.socket) !== conn) return;
    if (conn.timer !== undefined) clearTimeout(conn.timer);
    conn.timer = undefined;
    this.conns.delete(conn.socket);
    conn.peers.delete(conn);
    if (conn.peers.size === 0 && this.byAddress.get(conn.key) === conn.peers) this.byAddress.delete(conn.key);
  }
}

/**
 * Idle: nothing read yet, or its latest answer written (a keep-alive socket between requests). A
 * socket upgraded to a websocket never had a 'request' (Node hands it to 'upgrade'), so it counts
 * as busy, unless it served plain requests before its upgrade.
 */
function isIdle(c: Conn): boolean {
  return c.last === undefined ? c.socket.bytesRead === 0 : c.last.writableFinished;
}

/**
 * The key a client's connections are counted under: an IPv4 address (IPv4-mapped IPv6 included)
 * as it is, an IPv6 address by its /64 prefix, since one subscriber is usually given a whole /64
 * (RFC 6177) and could otherwise take a fresh address per connection.
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  if (!address.includes(':')) return address;
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && lower.includes('.')) return lower.slice('::ffff:'.length);
  const zone = lower.indexOf('%');
  const bare = zone < 0 ? lower : lower.slice(0, zone);
  const split = bare.indexOf('::');
  let groups: string[];
  if (split < 0) {
    groups = bare.split(':');
  } else {
    const head = split === 0 ? [] : bare.slice(0, split).split(':');
    const tail = split + 2 >= bare.length ? [] : bare.slice(split + 2).split(':');
    groups = [...head, ...new Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
