import { startProbeServer } from './probe-server';

describe('startProbeServer', () => {
  it('answers liveness, and readiness from its checks', async () => {
    let database: 'up' | 'down' = 'up';
    let registry: 'up' | { down: string } = 'up';
    const probe = await startProbeServer(0, async () => ({ database, registry }));
    try {
      const base = `http://127.0.0.1:${probe.port}`;
      expect((await fetch(`${base}/health/live`)).status).toBe(200);
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', details: { database: 'up', registry: 'up' } });
      registry = { down: 'its report to the registry failed: HTTP 401' };
      const refused = await fetch(`${base}/health/ready`);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({
        status: 'ok',
        details: { database: 'up', registry: 'down' },
        reasons: { registry: 'its report to the registry failed: HTTP 401' },
      });
      database = 'down';
      registry = 'up';
      expect((await fetch(`${base}/health/ready`)).status).toBe(503);
      expect((await fetch(`${base}/nope`)).status).toBe(404);
    } finally {
      await probe.close();
    }
  });
});
