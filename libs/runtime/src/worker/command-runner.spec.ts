import { randomUUID } from 'node:crypto';
import { answerRenderRequest, ExpressionEngine, OffloadingRenderer } from '@noetl/dsl';
import { ToolRegistry } from '@noetl/tools';
import { workerRun } from './command-runner';

describe('workerRun credentials', () => {
  const engine = new ExpressionEngine({ now: () => new Date(), uuid: () => randomUUID() });
  const render = new OffloadingRenderer(engine, { work: engine.limits.maxWork, ms: Infinity, clock: () => 0 }, async (request) =>
    answerRenderRequest(engine, request),
  );
  const site = { executionId: '1', step: 'fetch', scope: {} };
  const keychain = {
    keychain: [
      { name: 'first', kind: 'credential_ref', credential: 'api' },
      { name: 'second', kind: 'credential_ref', credential: 'api' },
    ],
  };

  it('asks the control plane once per credential for the whole run, and redacts it', async () => {
    const asked: string[] = [];
    const run = workerRun(
      {
        tools: new ToolRegistry(),
        render,
        pythonEnabled: false,
        resolveCredential: async (name) => {
          asked.push(name);
          return { token: 'tok-run-secret' };
        },
      },
      site,
    );
    const signal = new AbortController().signal;

    const scope = await run.scopeWithKeychain(keychain, {}, signal);
    await run.scopeWithKeychain(keychain, {}, signal);

    expect(asked).toEqual(['api']);
    expect(scope['keychain']).toEqual({ first: { token: 'tok-run-secret' }, second: { token: 'tok-run-secret' } });
    expect(run.secrets.text('said tok-run-secret')).not.toContain('tok-run-secret');
  });

  it('asks again after a failed resolution, and keeps no failure', async () => {
    let calls = 0;
    const run = workerRun(
      {
        tools: new ToolRegistry(),
        render,
        pythonEnabled: false,
        resolveCredential: async () => {
          calls++;
          if (calls === 1) throw new Error('control plane unreachable');
          return { token: 'tok-second-try' };
        },
      },
      site,
    );
    const signal = new AbortController().signal;
    const single = { keychain: [{ name: 'only', kind: 'credential_ref', credential: 'api' }] };

    await expect(run.scopeWithKeychain(single, {}, signal)).rejects.toThrow(/control plane unreachable/);
    const scope = await run.scopeWithKeychain(single, {}, signal);

    expect(calls).toBe(2);
    expect(scope['keychain']).toEqual({ only: { token: 'tok-second-try' } });
  });
});
