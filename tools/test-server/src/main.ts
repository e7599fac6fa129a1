import { limitsFromEnv } from './limits';
import { startTestServer, type TestServer } from './server';

export const DEFAULT_PORT = 5555;

/**
 * CLI: `node dist/tools/test-server/src/main.js [port]` (default 5555, 0 for an
 * ephemeral port). Tunables such as PATIENT_RECORDS_MIN_DELAY come from `env`.
 */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  log: (line: string) => void = (line) => console.log(line),
): Promise<TestServer> {
  const portArg = argv[2];
  const port = portArg === undefined ? DEFAULT_PORT : Number(portArg);
  if (!/^\d+$/.test(portArg ?? '0') || port > 65535) throw new Error(`invalid port: ${portArg}`);

  const server = await startTestServer({ port, host: '127.0.0.1', env: limitsFromEnv(env) });
  log(JSON.stringify({ level: 'info', msg: 'test server listening', url: server.url }));
  return server;
}

if (require.main === module) {
  runCli(process.argv, process.env).then(
    (server) => {
      const stop = (signal: string): void => {
        console.log(JSON.stringify({ level: 'info', msg: 'test server stopping', signal }));
        server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    },
    (error: unknown) => {
      console.error(JSON.stringify({ level: 'error', msg: 'test server failed to start', error: String(error) }));
      process.exit(1);
    },
  );
}
