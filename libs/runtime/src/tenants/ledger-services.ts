import type { TenantScope } from '@noetl/storage';
import { Offers } from '../bus/offers';
import { CatalogService } from '../catalog/catalog.service';
import { DeclaredSchedules } from '../cron-schedules/declared-schedules';
import { Ledger } from '../ledger';
import type { EventRows } from '../scheduler/materialize';
import { CommandOwners } from '../state/command-owners';
import { ExecutionStates } from '../state/execution-states';
import { PayloadCache } from '../state/payload-cache';
import { WORKER_REPORT_MS, type SharedParts } from './shared-parts';

/** What every role of a tenant reads and writes the ledger with. */
export interface LedgerServices {
  ledger: Ledger;
  payloads: PayloadCache;
  states: ExecutionStates;
  catalog: CatalogService;
  offers: Offers;
  /** The executions of the commands this process issued (the scheduler remembers them, the control plane's reports look them up). */
  owners: CommandOwners;
  rows: EventRows;
}

export function ledgerServices(scope: TenantScope, shared: SharedParts): LedgerServices {
  const { database: db, repositories: repos } = shared;
  const ledger = new Ledger(shared.store, shared.ids, scope, shared.producer, shared.metrics, () => shared.clock.now());
  const declared = new DeclaredSchedules({ rows: repos.scheduleRows, ids: shared.ids, scope, now: () => ledger.now() });
  return {
    ledger,
    payloads: new PayloadCache(shared.payloads.store, scope),
    states: new ExecutionStates(ledger),
    catalog: new CatalogService(db, shared.ids, scope, (q, playbook) => declared.apply(q, playbook)),
    offers: new Offers({ db, bus: shared.bus, workerRows: repos.workerRows, scope, freshMs: 3 * WORKER_REPORT_MS }),
    owners: new CommandOwners(),
    rows: {
      commandRows: repos.commandRows,
      frameRows: repos.frameRows,
      stageRows: repos.stageRows,
      timerRows: repos.timerRows,
      executionRows: repos.executionRows,
    },
  };
}
