import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TenantControlPlanes, TenantWorkerDirectories } from '@noetl/platform';
import type { Principal } from '@noetl/runtime';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { ApiErrorDto } from '../errors/api-error.dto';
import { LedgerIdentityDto, WorkerHeartbeatDto, WorkerListDto, WorkerListQueryDto, WorkerReportedDto } from './workers.dto';

/** The worker registry (seed 001 P4.2): workers report their capacity; operators list them. */
@ApiTags('workers')
@Access('viewer')
@Controller('api/workers')
export class WorkersController {
  constructor(
    private readonly directory: TenantWorkerDirectories,
    private readonly controlPlane: TenantControlPlanes,
  ) {}

  @Get()
  @ApiOperation({ summary: "The tenant's registered workers with their capacity and status, and per worker pool its workers and backlog" })
  @ApiOkResponse({ type: WorkerListDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  async list(@Caller() caller: Principal, @Query() query: WorkerListQueryDto): Promise<WorkerListDto> {
    const directory = this.directory.of(caller.scope);
    const [workers, pools] = await Promise.all([directory.list(query.status), directory.pools()]);
    return { workers, pools };
  }

  @Post(':id/heartbeat')
  @Access('worker')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "A worker's report of its capacity (its first one registers it)" })
  @ApiOkResponse({ type: WorkerReportedDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  async heartbeat(@Caller() caller: Principal, @Param('id') id: string, @Body() body: WorkerHeartbeatDto): Promise<WorkerReportedDto> {
    await this.controlPlane.of(caller.scope).reportWorker({ worker_id: id, ...body });
    return { worker_id: id };
  }

  /** A worker holds no connection to the ledger (no DATABASE_URL): this is how its postgres steps are refused the ledger all the same. */
  @Get('ledger')
  @Access('worker')
  @ApiOperation({
    summary:
      'Which database the ledger is, as its server says: workers refuse it (and its cluster, to a role with power over it) to postgres steps',
  })
  @ApiOkResponse({ type: LedgerIdentityDto })
  async ledger(@Caller() caller: Principal): Promise<LedgerIdentityDto> {
    const { cluster, startedAt, oid, name } = await this.controlPlane.of(caller.scope).ledgerIdentity();
    return { cluster, started_at: startedAt, oid, name };
  }
}
