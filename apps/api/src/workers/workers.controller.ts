import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LocalControlPlane, WorkerDirectory } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { WorkerHeartbeatDto, WorkerListDto, WorkerReportedDto } from './workers.dto';

/** The worker registry (seed 001 P4.2): workers report their capacity; operators list them. */
@ApiTags('workers')
@Controller('api/workers')
export class WorkersController {
  constructor(
    private readonly directory: WorkerDirectory,
    private readonly controlPlane: LocalControlPlane,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Registered workers with their capacity and status' })
  @ApiOkResponse({ type: WorkerListDto })
  async list(): Promise<WorkerListDto> {
    return { workers: await this.directory.list() };
  }

  @Post(':id/heartbeat')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "A worker's report of its capacity (its first one registers it)" })
  @ApiOkResponse({ type: WorkerReportedDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  async heartbeat(@Param('id') id: string, @Body() body: WorkerHeartbeatDto): Promise<WorkerReportedDto> {
    await this.controlPlane.reportWorker({ worker_id: id, ...body });
    return { worker_id: id };
  }
}
