import { Body, Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal, ClaimedFrame, HeartbeatResult, ResolvedCredential } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { ClaimDto, CredentialRequestDto, FailDto, LeaseDto } from './control-plane-requests.dto';
import { HeartbeatResultDto, ResolvedCredentialDto } from './control-plane-responses.dto';
import { CommitFrameDto } from './frame-requests.dto';
import { FrameClaimDto, FrameReportedDto } from './frame-responses.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantControlPlanes } from '@noetl/platform';

/** The frame side of the worker control plane over HTTP (DESIGN.md s6). */
@ApiTags('control-plane')
@Access('worker')
@ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such stage or frame' })
@Controller('api')
export class FramesController {
  constructor(private readonly controlPlane: TenantControlPlanes) {}

  @Post('stages/:id/frames/claim')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Take the lease on a stage's next claimable frame; `frame` is null when none is claimable now" })
  @ApiOkResponse({ type: FrameClaimDto })
  async claim(@Caller() caller: Principal, @Param('id') id: string, @Body() body: ClaimDto): Promise<{ frame: ClaimedFrame | null }> {
    return { frame: await this.controlPlane.of(caller.scope).claimFrame(id, body) };
  }

  @Post('frames/:id/heartbeat')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Extend the frame's lease; the answer says whether the execution ended" })
  @ApiOkResponse({ type: HeartbeatResultDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost, or already_terminal' })
  heartbeat(@Caller() caller: Principal, @Param('id') id: string, @Body() body: LeaseDto): Promise<HeartbeatResult> {
    return this.controlPlane.of(caller.scope).heartbeatFrame(id, body);
  }

  @Post('frames/:id/commit')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Commit the frame: one frame.committed with its row outcomes' })
  @ApiOkResponse({ type: FrameReportedDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'A late or duplicate commit (already_terminal), or lease_lost' })
  async commit(@Caller() caller: Principal, @Param('id') id: string, @Body() body: CommitFrameDto): Promise<FrameReportedDto> {
    await this.controlPlane.of(caller.scope).commitFrame(id, body);
    return { frame_id: id, status: 'COMMITTED' };
  }

  @Post('frames/:id/fail')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Report that the frame could not run: frame.failed' })
  @ApiOkResponse({ type: FrameReportedDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'A late or duplicate report (already_terminal), or lease_lost' })
  async fail(@Caller() caller: Principal, @Param('id') id: string, @Body() body: FailDto): Promise<FrameReportedDto> {
    await this.controlPlane.of(caller.scope).failFrame(id, body);
    return { frame_id: id, status: 'FAILED' };
  }

  @Post('frames/:id/release')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Give the frame back whole (a worker shutting down): claimable again, its claim refunded' })
  @ApiOkResponse({ type: FrameReportedDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: "already_terminal: the frame is no longer this worker's" })
  async release(@Caller() caller: Principal, @Param('id') id: string, @Body() body: LeaseDto): Promise<FrameReportedDto> {
    await this.controlPlane.of(caller.scope).releaseFrame(id, body);
    return { frame_id: id, status: 'PENDING' };
  }

  @Post('frames/:id/credential')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "A credential's data, for the worker that holds the frame's lease" })
  @ApiOkResponse({ type: ResolvedCredentialDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'lease_lost, or already_terminal' })
  credential(@Caller() caller: Principal, @Param('id') id: string, @Body() body: CredentialRequestDto): Promise<ResolvedCredential> {
    return this.controlPlane.of(caller.scope).resolveFrameCredential(id, body);
  }
}
