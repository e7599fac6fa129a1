import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LOCAL_SUBJECT, type AdminActionResult, type AdminRequest, type Principal, type StuckList } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { AdminActionDto, AdminReasonedActionDto, StuckQueryDto } from './admin-requests.dto';
import { AdminActionResultDto, StuckListDto } from './admin-responses.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantAdmins } from '@noetl/platform';

const ENDED = 'The target already ended (already_terminal); nothing was recorded';

/**
 * Stuck work, visible and actionable (DESIGN.md s4 "Reaper and timers", s6).
 * Every action records one `admin.action` event with the actor and the reason.
 */
@ApiTags('admin')
@Access('operator')
@Controller('api/admin')
export class AdminController {
  constructor(private readonly admin: TenantAdmins) {}

  @Get('stuck')
  @ApiOperation({ summary: 'Commands and frames that are stuck, and why, oldest first' })
  @ApiOkResponse({ type: StuckListDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  stuck(@Caller() caller: Principal, @Query() query: StuckQueryDto): Promise<StuckList> {
    return this.admin.of(caller.scope).stuck(query);
  }

  @Post('commands/:id/reclaim')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Take a claimed command from its worker (command.abandoned); the scheduler issues the next attempt' })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'The command is not claimed (invalid_request), or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  reclaimCommand(@Caller() caller: Principal, @Param('id') id: string, @Body() body: AdminActionDto): Promise<AdminActionResult> {
    return this.admin.of(caller.scope).reclaim('command', id, withActor(caller, body));
  }

  @Post('commands/:id/fail')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Fail a command with {kind: 'admin', message: reason}; the step's retry policies decide what follows" })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  failCommand(@Caller() caller: Principal, @Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.of(caller.scope).fail('command', id, withActor(caller, body));
  }

  @Post('frames/:id/reclaim')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Take a claimed frame from its worker (frame.abandoned); it is pending again, to be claimed anew' })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'The frame is not claimed (invalid_request), or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  reclaimFrame(@Caller() caller: Principal, @Param('id') id: string, @Body() body: AdminActionDto): Promise<AdminActionResult> {
    return this.admin.of(caller.scope).reclaim('frame', id, withActor(caller, body));
  }

  @Post('frames/:id/fail')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Fail a frame with {kind: 'admin', message: reason} (frame.failed)" })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  failFrame(@Caller() caller: Principal, @Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.of(caller.scope).fail('frame', id, withActor(caller, body));
  }

  @Post('executions/:id/finalize')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Force-fail a stuck execution with {kind: 'admin', message: reason}; its open commands are cancelled" })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  finalize(@Caller() caller: Principal, @Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.of(caller.scope).finalize(id, withActor(caller, body));
  }

  @Post('executions/:id/purge')
  // Retention deletes history: an admin's call, not an operator's.
  @Access('admin')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      "Retention: delete an ended execution's events but its start, its end and its audits (the ledger's one way out); an admin.action records who and why",
  })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'The execution is still running, no reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  purge(@Caller() caller: Principal, @Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.of(caller.scope).purge(id, withActor(caller, body));
  }

  @Post('executions/:id/cancel')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Cancel an execution on behalf of the actor; its open commands and children are cancelled after' })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  cancel(@Caller() caller: Principal, @Param('id') id: string, @Body() body: AdminActionDto): Promise<AdminActionResult> {
    return this.admin.of(caller.scope).cancelExecution(id, withActor(caller, body));
  }
}

/**
 * The authenticated caller is the actor on record; a name the body gives is
 * kept beside it, never instead of it. Without auth (the process's own
 * caller) the body's name stands alone, as the only one there is.
 */
function withActor<T extends AdminRequest>(caller: Principal, body: T): T {
  if (caller.subject === LOCAL_SUBJECT) return body;
  return { ...body, actor: body.actor ? `${body.actor} (${caller.subject})` : caller.subject };
}
