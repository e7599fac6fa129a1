import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminService, type AdminActionResult, type StuckList } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { AdminActionDto, AdminReasonedActionDto, StuckQueryDto } from './admin-requests.dto';
import { AdminActionResultDto, StuckListDto } from './admin-responses.dto';

const ENDED = 'The target already ended (already_terminal); nothing was recorded';

/**
 * Stuck work, visible and actionable (DESIGN.md s4 "Reaper and timers", s6).
 * Every action records one `admin.action` event with the actor and the reason.
 */
@ApiTags('admin')
@Controller('api/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Get('stuck')
  @ApiOperation({ summary: 'Commands and frames that are stuck, and why, oldest first' })
  @ApiOkResponse({ type: StuckListDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  stuck(@Query() query: StuckQueryDto): Promise<StuckList> {
    return this.admin.stuck(query);
  }

  @Post('commands/:id/reclaim')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Take a claimed command from its worker (command.abandoned); the scheduler issues the next attempt' })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'The command is not claimed (invalid_request), or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  reclaimCommand(@Param('id') id: string, @Body() body: AdminActionDto): Promise<AdminActionResult> {
    return this.admin.reclaim('command', id, body);
  }

  @Post('commands/:id/fail')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Fail a command with {kind: 'admin', message: reason}; the step's retry policies decide what follows" })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  failCommand(@Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.fail('command', id, body);
  }

  @Post('frames/:id/reclaim')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Take a claimed frame from its worker (frame.abandoned); it is pending again, to be claimed anew' })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'The frame is not claimed (invalid_request), or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  reclaimFrame(@Param('id') id: string, @Body() body: AdminActionDto): Promise<AdminActionResult> {
    return this.admin.reclaim('frame', id, body);
  }

  @Post('frames/:id/fail')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Fail a frame with {kind: 'admin', message: reason} (frame.failed)" })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  failFrame(@Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.fail('frame', id, body);
  }

  @Post('executions/:id/finalize')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: "Force-fail a stuck execution with {kind: 'admin', message: reason}; its open commands are cancelled" })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  finalize(@Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.finalize(id, body);
  }

  @Post('executions/:id/purge')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: "Retention: delete an ended execution's events but its start, its end and its audits (the ledger's one way out); an admin.action records who and why",
  })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'The execution is still running, no reason, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  purge(@Param('id') id: string, @Body() body: AdminReasonedActionDto): Promise<AdminActionResult> {
    return this.admin.purge(id, body);
  }

  @Post('executions/:id/cancel')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Cancel an execution on behalf of the actor; its open commands and children are cancelled after' })
  @ApiOkResponse({ type: AdminActionResultDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: ENDED })
  cancel(@Param('id') id: string, @Body() body: AdminActionDto): Promise<AdminActionResult> {
    return this.admin.cancelExecution(id, body);
  }
}
