import type { MigrationInterface } from 'typeorm';
import { Initial1795344000000 } from './1795344000000-Initial';
import { SchedulerCursor1795430400000 } from './1795430400000-SchedulerCursor';
import { StageScheduling1795516800000 } from './1795516800000-StageScheduling';
import { WorkerRegistry1795600000000 } from './1795600000000-WorkerRegistry';
import { LeaseTokens1795600000001 } from './1795600000001-LeaseTokens';
import { OutboxNotify1795600000002 } from './1795600000002-OutboxNotify';
import { Schedules1795700000000 } from './1795700000000-Schedules';
import { Tenancy1796000000000 } from './1796000000000-Tenancy';
import { Leadership1795900000000 } from './1795900000000-Leadership';
import { AppendOnlyLedger1795900000001 } from './1795900000001-AppendOnlyLedger';
import { FrameCancelled1795900000002 } from './1795900000002-FrameCancelled';
import { SweepIndexes1796100000000 } from './1796100000000-SweepIndexes';
import { RunningChildren1796100000001 } from './1796100000001-RunningChildren';
import { DropExecutionTenantPath1796100000002 } from './1796100000002-DropExecutionTenantPath';
import { LedgerTail1796200000000 } from './1796200000000-LedgerTail';
import { LeanEventIndexes1796200000001 } from './1796200000001-LeanEventIndexes';
import { ProjectionReducerVersion1796200000002 } from './1796200000002-ProjectionReducerVersion';
import { WorkerIdPerTenant1796300000000 } from './1796300000000-WorkerIdPerTenant';
import { EventHashChain1796300000001 } from './1796300000001-EventHashChain';
import { CredentialBinding1796300000002 } from './1796300000002-CredentialBinding';
import { ExecutionRerunOf1796300000003 } from './1796300000003-ExecutionRerunOf';
import { RuntimeRole1796400000000 } from './1796400000000-RuntimeRole';
import { WorkPools1796400000100 } from './1796400000100-WorkPools';
import { CatalogModel1796500000000 } from './1796500000000-CatalogModel';
import { ExpectedReport1796600000000 } from './1796600000000-ExpectedReport';
import { ExpectedCatalog1796600000001 } from './1796600000001-ExpectedCatalog';
import { ExpectedClaim1796600000002 } from './1796600000002-ExpectedClaim';

/**
 * Every migration, oldest first. Listed by import rather than found by glob, so
 * the same list loads under ts-jest/swc and from the compiled `dist`.
 */
export const MIGRATIONS: ReadonlyArray<new () => MigrationInterface> = [
  Initial1795344000000,
  SchedulerCursor1795430400000,
  StageScheduling1795516800000,
  WorkerRegistry1795600000000,
  LeaseTokens1795600000001,
  OutboxNotify1795600000002,
  Schedules1795700000000,
  Leadership1795900000000,
  AppendOnlyLedger1795900000001,
  FrameCancelled1795900000002,
  Tenancy1796000000000,
  SweepIndexes1796100000000,
  RunningChildren1796100000001,
  DropExecutionTenantPath1796100000002,
  LedgerTail1796200000000,
  LeanEventIndexes1796200000001,
  ProjectionReducerVersion1796200000002,
  WorkerIdPerTenant1796300000000,
  EventHashChain1796300000001,
  CredentialBinding1796300000002,
  ExecutionRerunOf1796300000003,
  RuntimeRole1796400000000,
  WorkPools1796400000100,
  CatalogModel1796500000000,
  ExpectedReport1796600000000,
  ExpectedCatalog1796600000001,
  ExpectedClaim1796600000002,
];
