import { Body, Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { TenantControlPlanes } from '@noetl/platform';
import type { ClaimedCommand, HeartbeatResult, Principal, ResolvedCredential, StreamBacklog } from '@noetl/runtime';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { ApiErrorDto } from '../errors/api-error.dto';
import {
  ClaimDto,
  CompleteDto,
  CredentialRequestDto,
  FailDto,
  HolderDto,
  LeaseDto,
  PartialDto,
  StartChildDto,
} from './control-plane-requests.dto';
import {
  ChildStartedDto,
  ClaimedCommandDto,
  CommandReportedDto,
  HeartbeatResultDto,
  PartialRecordedDto,
  ResolvedCredentialDto,
  StreamBacklogDto,
} from './control-plane-responses.dto';

/** The worker control plane over HTTP (DESIGN.md s6): each route is one call of the `ControlPlane` port. */
@ApiTags('control-plane')
@Access('worker')
@ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such command' })
@Controller('api/commands/:id')
export class CommandsController {
  constructor(private readonly controlPlane: TenantControlPlanes) {}

  @Post('claim')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Take the lease on an issued command' })
  @ApiOkResponse({ type: ClaimedCommandDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'already_claimed by another worker, or already_terminal' })
  claim(@Caller() caller: Principal, @Param('id') id: string, @Body() body: ClaimDto): Promise<ClaimedCommand> {
    return this.controlPlane.of(caller.scope).claim(id, body);
  }

  @Post('heartbeat')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Extend the lease; the answer says whether the command was cancelled' })
  @ApiOkResponse({ type: HeartbeatResultDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost, or already_terminal' })
  heartbeat(@Caller() caller: Principal, @Param('id') id: string, @Body() body: LeaseDto): Promise<HeartbeatResult> {
    return this.controlPlane.of(caller.scope).heartbeat(id, body);
  }

  @Post('complete')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Report the command done, with its result' })
  @ApiOkResponse({ type: CommandReportedDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'A late or duplicate report (already_terminal), or lease_lost' })
  async complete(@Caller() caller: Principal, @Param('id') id: string, @Body() body: CompleteDto): Promise<CommandReportedDto> {
    await this.controlPlane.of(caller.scope).complete(id, body);
    return { command_id: id, status: 'COMPLETED' };
  }

  @Post('fail')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Report the command failed, with the error' })
  @ApiOkResponse({ type: CommandReportedDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'A late or duplicate report (already_terminal), or lease_lost' })
  async fail(@Caller() caller: Principal, @Param('id') id: string, @Body() body: FailDto): Promise<CommandReportedDto> {
    await this.controlPlane.of(caller.scope).fail(id, body);
    return { command_id: id, status: 'FAILED' };
  }

  @Post('partial')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: 'Report one chunk of a streamed result (call.partial); its rows go to the payload store' })
  @ApiAcceptedResponse({ type: PartialRecordedDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost, or already_terminal' })
  async partial(@Caller() caller: Principal, @Param('id') id: string, @Body() body: PartialDto): Promise<PartialRecordedDto> {
    const backlog = await this.controlPlane.of(caller.scope).reportPartial(id, body);
    return { command_id: id, chunk_index: body.chunk_index, ...backlog };
  }

  @Post('stream-backlog')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "How many of the command's streamed chunks are not yet consumed (backpressure: the worker waits while too many are)",
  })
  @ApiOkResponse({ type: StreamBacklogDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost, or already_terminal' })
  streamBacklog(@Caller() caller: Principal, @Param('id') id: string, @Body() body: HolderDto): Promise<StreamBacklog> {
    return this.controlPlane.of(caller.scope).streamBacklog(id, body);
  }

  @Post('release')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Give the command back unrun (a worker shutting down): claimable again, no attempt spent' })
  @ApiOkResponse({ type: CommandReportedDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost, or already_terminal' })
  async release(@Caller() caller: Principal, @Param('id') id: string, @Body() body: LeaseDto): Promise<CommandReportedDto> {
    await this.controlPlane.of(caller.scope).release(id, body);
    return { command_id: id, status: 'ISSUED' };
  }

  @Post('child')
  @ApiOperation({ summary: "Start a playbook command's child execution (idempotent per command)" })
  @ApiCreatedResponse({ type: ChildStartedDto })
  @ApiConflictResponse({ type: ApiErrorDto })
  async child(@Caller() caller: Principal, @Param('id') id: string, @Body() body: StartChildDto): Promise<ChildStartedDto> {
    const { execution_id } = await this.controlPlane.of(caller.scope).startChild(id, body);
    return { execution_id };
  }

  @Post('credential')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Resolve a credential for the worker holding the command' })
  @ApiOkResponse({ type: ResolvedCredentialDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'The worker does not hold the lease' })
  credential(@Caller() caller: Principal, @Param('id') id: string, @Body() body: CredentialRequestDto): Promise<ResolvedCredential> {
    return this.controlPlane.of(caller.scope).resolveCredential(id, body);
  }
}
