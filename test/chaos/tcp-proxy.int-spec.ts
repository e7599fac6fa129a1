import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { waitFor } from '../support/wait-for';
import { hold } from './scenario';
import { TcpProxy } from './tcp-proxy';

/** A real echo server that counts what reached it. */
interface Echo {
  port: number;
  /** Connections it accepted, and those that are closed again. */
  accepted: number;
  closed: number;
  /** Bytes it received, over every connection. */
  received: number;
  close(): Promise<void>;
}

async function startEcho(): Promise<Echo> {
  const sockets = new Set<Socket>();
  const echo = { port: 0, accepted: 0, closed: 0, received: 0 } as Echo;
  const server: Server = createServer((socket) => {
    echo.accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      echo.received += chunk.length;
      socket.write(chunk);
    });
    socket.once('close', () => {
      echo.closed++;
      sockets.delete(socket);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  echo.port = (server.address() as { port: number }).port;
  echo.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return echo;
}

/** A client connection through the proxy, with everything it has read so far. */
interface Peer {
  socket: Socket;
  read(): string;
  ended: Promise<string>;
}

async function dial(port: number): Promise<Peer> {
  const socket = connect({ host: '127.0.0.1', port });
  let text = '';
  socket.on('data', (chunk) => void (text += chunk.toString('utf8')));
  const ended = new Promise<string>((resolve) => {
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.once('close', () => resolve('closed'));
  });
  await once(socket, 'connect');
  return { socket, read: () => text, ended };
}

const echoed = (peer: Peer, text: string): Promise<unknown> =>
  waitFor(async () => peer.read().includes(text), { timeoutMs: 5_000, intervalMs: 10, description: `echo of ${text}` });

describe('the chaos harness TCP proxy', () => {
  let echo: Echo;
  let proxy: TcpProxy;
  const peers: Peer[] = [];
  const through = async (): Promise<Peer> => {
    const peer = await dial(proxy.port);
    peers.push(peer);
    return peer;
  };

  beforeEach(async () => {
    echo = await startEcho();
    proxy = await TcpProxy.start(echo.port);
  });
  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.socket.destroy();
    await proxy.close();
    await echo.close();
  });

  it('forwards both ways', async () => {
    const peer = await through();
    peer.socket.write('hello');
    await echoed(peer, 'hello');
    expect(echo.received).toBe(5);
  });

  it('drop resets open connections and new ones, and heal forwards again', async () => {
    const open = await through();
    open.socket.write('one');
    await echoed(open, 'one');
    proxy.drop();
    expect(await open.ended).toBe('ECONNRESET');
    // The server's side is reset too.
    await waitFor(async () => echo.closed === 1, { timeoutMs: 5_000, intervalMs: 10, description: 'the server side closed' });
    // A new connection is reset as it comes (at its connect or its first read, as the kernel has it).
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    const [error] = (await once(refused, 'error').catch((e: unknown) => [e])) as NodeJS.ErrnoException[];
    expect(error?.code).toBe('ECONNRESET');
    expect(echo.accepted).toBe(1);
    proxy.heal();
    const again = await through();
    again.socket.write('two');
    await echoed(again, 'two');
  });

  it('blackhole forwards nothing and closes nothing; healed with resume, what was sent meanwhile arrives', async () => {
    const open = await through();
    open.socket.write('before');
    await echoed(open, 'before');
    proxy.blackhole();
    open.socket.write('during');
    // Accepted, as a partition's far side is not there to refuse it: its connect succeeds.
    const late = await through();
    late.socket.write('late');
    await hold(300);
    expect(echo.received).toBe('before'.length);
    expect(echo.accepted).toBe(1);
    expect(open.socket.destroyed || late.socket.destroyed).toBe(false);
    expect(open.read()).toBe('before');
    proxy.heal({ stalled: 'resume' });
    await echoed(open, 'during');
    await echoed(late, 'late');
    expect(echo.accepted).toBe(2);
  });

  it('blackhole healed with dead: caught connections never pass again, new ones do, and a client closing frees the server side', async () => {
    const open = await through();
    open.socket.write('before');
    await echoed(open, 'before');
    proxy.blackhole();
    open.socket.write('during');
    proxy.heal({ stalled: 'dead' });
    const fresh = await through();
    fresh.socket.write('fresh');
    await echoed(fresh, 'fresh');
    open.socket.write('after');
    await hold(300);
    expect(open.read()).toBe('before');
    expect(echo.received).toBe('before'.length + 'fresh'.length);
    expect(echo.closed).toBe(0);
    expect(proxy.stranded).toBe(1);
    open.socket.end();
    await waitFor(async () => echo.closed === 1, {
      timeoutMs: 5_000,
      intervalMs: 10,
      description: 'the dead connection closed at the server',
    });
    expect(proxy.stranded).toBe(0);
  });
});
