import { createServer } from 'node:net';

/** A port free on loopback now: the OS picks it, and a process started next binds it (the embedded PostgreSQL's, a test's or bench's server). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('the OS gave no free loopback port'))));
    });
  });
}
