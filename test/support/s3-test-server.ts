import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver ships no types: the little of it used here is typed below.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; httpServer?: Server };

/** s3rver's fixed credentials; the AWS SDK's default chain reads them from the environment. */
const ACCESS_KEY = 'S3RVER';

export interface S3TestServer {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  bucket: string;
  /** The engine environment that selects this server as the payload store (add NOETL_S3_MIN_BYTES etc. as needed). */
  env: Record<string, string>;
  /** The file holding an object's bytes, for specs that corrupt one. */
  objectFile(key: string): Promise<string>;
  /** Overwrites an object's stored bytes behind the server's back. */
  corrupt(key: string, bytes: Buffer): Promise<void>;
  /** `METHOD /path?query` of every request the server received, oldest first. */
  requests(): string[];
  /** Every key of the bucket. */
  keys(): Promise<string[]>;
  /** Closes the port (connections are cut): the store is unreachable until `start`. */
  stop(): Promise<void>;
  /** Listens again on the same port, over the same objects. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real S3 protocol server (s3rver, from npm) on loopback, with one bucket,
 * its objects in a temporary directory. MinIO cannot be downloaded where the
 * tests run; s3rver speaks the same wire protocol the SDK does (signature
 * v4, multipart uploads, HEAD, ListObjectsV2).
 */
export async function startS3TestServer(bucket = 'noetl-test'): Promise<S3TestServer> {
  process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = ACCESS_KEY;
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  let port = 0;
  let server: Server | undefined;
  const requests: string[] = [];

  const start = async (): Promise<void> => {
    const s3 = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket }] });
    port = (await s3.run()).port;
    server = s3.httpServer;
    server?.on('request', (request: IncomingMessage) => requests.push(`${request.method} ${request.url}`));
  };
  const stop = async (): Promise<void> => {
    const closing = server;
    server = undefined;
    if (!closing) return;
    await new Promise<void>((resolve) => {
      closing.close(() => resolve());
      closing.closeAllConnections();
    });
  };
  // s3rver's layout: <directory>/<bucket>/<key>._S3rver_object
  const objectFile = async (key: string): Promise<string> => join(directory, bucket, `${key}._S3rver_object`);
  const keys = async (): Promise<string[]> => {
    const root = join(directory, bucket);
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('._S3rver_object'))
      .map((entry) =>
        join(entry.parentPath, entry.name)
          .slice(root.length + 1)
          .replace(/\._S3rver_object$/, ''),
      );
  };

  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      NOETL_PAYLOAD_STORE: 's3',
      NOETL_S3_ENDPOINT: endpoint,
      NOETL_S3_BUCKET: bucket,
      NOETL_S3_FORCE_PATH_STYLE: 'true',
      NOETL_S3_REGION: 'us-east-1',
    },
    objectFile,
    corrupt: async (key, bytes) => writeFile(await objectFile(key), bytes),
    keys,
    requests: () => [...requests],
    stop,
    start,
    close: async () => {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
