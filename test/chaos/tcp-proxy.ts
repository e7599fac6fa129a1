import { createServer, connect, type Server, type Socket } from 'node:net';
import { freePort } from '../support/cli-server-process';

/** What a partition does to a link: `drop` resets it, `blackhole` swallows it. */
export type PartitionMode = 'drop' | 'blackhole';

/**
 * A flow through the proxy: the client's socket and the target's (absent
 * while it connects, or for a flow accepted into a blackhole, which never
 * reaches the target).
 */
interface Flow {
  client: Socket;
  target?: Socket;
  /**
   * `stalled`: caught by a blackhole, its bytes wait in the paused sockets
   * until `heal` decides; `dead`: left so by `heal`, nothing passes again.
   */
  state: 'open' | 'stalled' | 'dead';
}

/**
 * A loopback TCP proxy the chaos harness puts on a link (workers -> api,
 * api -> PostgreSQL) to partition it:
 *
 * - `drop()`: every open connection is reset (RST), and new ones are reset
 *   as they come: both ends learn at once.
 * - `blackhole()`: nothing is forwarded any more, in either direction, and
 *   nothing is closed: open connections stay open and silent, new ones are
 *   accepted and never reach the target. Neither end learns anything: only
 *   its own timeouts get it out.
 * - `heal({ stalled })`: new connections are forwarded again. The ones the
 *   blackhole caught either `resume` (what was sent meanwhile is delivered,
 *   as TCP does when a short partition ends) or stay `dead` (a lost NAT or
 *   conntrack entry: nothing ever passes again; the target's side is closed
 *   only once the client closes its own, as a server's keepalive would find).
 */
export class TcpProxy {
  private readonly flows = new Set<Flow>();
  private mode: 'forward' | PartitionMode = 'forward';

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly targetPort: number,
    private readonly targetHost: string,
  ) {}

  /** A proxy on a free loopback port forwarding to `targetHost:targetPort`. */
  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const port = await freePort();
    const server = createServer({ noDelay: true });
    const proxy = new TcpProxy(server, port, targetPort, targetHost);
    server.on('connection', (socket) => proxy.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** The partition in force, or `forward`. */
  get state(): 'forward' | PartitionMode {
    return this.mode;
  }

  /** Connections open through the proxy (a blackhole's included). */
  get open(): number {
    return this.flows.size;
  }

  /**
   * Dead connections whose client has not closed its end: a client still
   * waiting for an answer that will never come (one with a timeout closes
   * its end and frees the connection; an idle pooled one is closed by its pool).
   */
  get stranded(): number {
    return [...this.flows].filter((f) => f.state === 'dead' && !f.client.destroyed).length;
  }

  /** Resets every connection, and every new one until `heal`. */
  drop(): void {
    this.mode = 'drop';
    for (const flow of this.flows) this.reset(flow);
  }

  /** Forwards nothing, closes nothing, until `heal`. */
  blackhole(): void {
    this.mode = 'blackhole';
    for (const flow of this.flows) this.stall(flow);
  }

  /** Forwards new connections again; `stalled` says what becomes of those the blackhole caught (default `resume`). */
  heal(options: { stalled?: 'resume' | 'dead' } = {}): void {
    this.mode = 'forward';
    for (const flow of [...this.flows].filter((f) => f.state === 'stalled')) {
      if (options.stalled === 'dead') this.kill(flow);
      else this.resume(flow);
    }
  }

  async close(): Promise<void> {
    for (const flow of this.flows) this.reset(flow);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'drop') {
      client.resetAndDestroy();
      return;
    }
    const flow: Flow = { client, state: 'open' };
    this.flows.add(flow);
    client.once('close', () => {
      this.flows.delete(flow);
      if (flow.state === 'open') flow.target?.destroy();
    });
    if (this.mode === 'blackhole') {
      // Accepted (the client's connect succeeds), not forwarded: the target is called only if it resumes.
      this.stall(flow);
      return;
    }
    client.pause();
    this.connectTarget(flow);
  }

  private connectTarget(flow: Flow): void {
    const target = connect({ host: this.targetHost, port: this.targetPort, noDelay: true });
    flow.target = target;
    target.on('error', () => undefined);
    target.once('connect', () => {
      if (flow.state === 'open') this.pipe(flow);
    });
    // The target ended the connection (or refused it): the client sees it, unless a partition hides it.
    target.once('close', () => {
      if (flow.state === 'open') flow.client.destroy();
    });
  }

  private pipe(flow: Flow): void {
    const { client, target } = flow;
    if (!target) return;
    client.pipe(target);
    target.pipe(client);
    client.resume();
    target.resume();
  }

  private stall(flow: Flow): void {
    if (flow.state === 'dead') return;
    flow.state = 'stalled';
    flow.client.unpipe();
    flow.client.pause();
    flow.target?.unpipe();
    flow.target?.pause();
  }

  private resume(flow: Flow): void {
    flow.state = 'open';
    if (flow.client.destroyed || flow.target?.destroyed) {
      // An end went while it was stalled: the other end learns it now.
      this.reset(flow);
    } else if (!flow.target) {
      // Accepted into the blackhole: it reaches the target now, as a late SYN would, with what it sent meanwhile.
      this.connectTarget(flow);
    } else if (!flow.target.connecting) {
      this.pipe(flow);
    } // else its 'connect' pipes it
  }

  /** A dead flow: its bytes are read and thrown away; the target's side closes only when the client's does. */
  private kill(flow: Flow): void {
    flow.state = 'dead';
    const { client, target } = flow;
    const discard = (): void => undefined;
    client.on('data', discard).resume();
    target?.on('data', discard).resume();
    client.once('close', () => target?.destroy());
  }

  private reset(flow: Flow): void {
    flow.state = 'dead';
    this.flows.delete(flow);
    if (!flow.client.destroyed) flow.client.resetAndDestroy();
    if (flow.target && !flow.target.destroyed) flow.target.resetAndDestroy();
  }
}
