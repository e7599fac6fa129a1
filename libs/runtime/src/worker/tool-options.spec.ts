import { loadConfig } from '@noetl/config';
import type { DatabaseIdentity } from '@noetl/tools';
import { workerToolOptions } from './tool-options';

const ledger = async (): Promise<DatabaseIdentity> => ({ cluster: '1', startedAt: 'then', oid: '1', name: 'noetl' });

describe('workerToolOptions', () => {
  it('protects the ledger from postgres steps by default, and not when NOETL_TOOLS_LEDGER_ACCESS=allow', () => {
    expect(workerToolOptions(loadConfig({}), ledger).postgres?.protectedDatabase?.reason).toContain('NOETL_TOOLS_LEDGER_ACCESS=allow');
    expect(workerToolOptions(loadConfig({ NOETL_TOOLS_LEDGER_ACCESS: 'allow' }), ledger).postgres).toEqual({});
  });

  it("refuses the ledger's cluster to powerful roles by default, and only the ledger database with NOETL_TOOLS_LEDGER_ACCESS=database", () => {
    expect(workerToolOptions(loadConfig({}), ledger).postgres?.protectedDatabase?.cluster?.hint).toContain(
      'NOETL_TOOLS_LEDGER_ACCESS=database',
    );
    const databaseOnly = workerToolOptions(loadConfig({ NOETL_TOOLS_LEDGER_ACCESS: 'database' }), ledger).postgres?.protectedDatabase;
    expect(databaseOnly?.reason).toContain('NOETL_TOOLS_LEDGER_ACCESS=allow');
    expect(databaseOnly).not.toHaveProperty('cluster');
  });

  it('passes the javascript and python limits on in the units the tools take', () => {
    const options = workerToolOptions(
      loadConfig({
        NOETL_JS_THREADS: '3',
        NOETL_JS_MEMORY_MB: '32',
        NOETL_JS_MAX_TIMEOUT_SECONDS: '9',
        NOETL_PYTHON_MEMORY_MB: '512',
        NOETL_PYTHON_FILE_MB: '16',
        NOETL_PYTHON_USER: 'app',
      }),
      ledger,
    );
    expect(options.javascript).toEqual({ threads: 3, memoryLimitBytes: 32 * 1024 * 1024, maxTimeoutSeconds: 9 });
    expect(options.python).toEqual({
      user: 'app',
      limits: { addressSpaceBytes: 512 * 1024 * 1024, fileBytes: 16 * 1024 * 1024 },
      maxTimeoutSeconds: 3600,
    });
    expect(options.http).toEqual({ maxTimeoutSeconds: 300 });
  });

  it('refuses python steps when the start probe found the ledger exposed, and only then', () => {
    expect(workerToolOptions(loadConfig({}), ledger, 'the cluster trusts this host').python?.refusedBecause).toBe(
      'the cluster trusts this host',
    );
    expect(workerToolOptions(loadConfig({}), ledger).python).not.toHaveProperty('refusedBecause');
  });
});
