import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Json, JsonObject } from '@noetl/event-kernel';
import { TenantExecutions } from '@noetl/platform';
import {
  LOCAL_SUBJECT,
  RuntimeError,
  type DeliveredSignal,
  type EventPage,
  type ExecutionDetail,
  type ExecutionPage,
  type PlaybookRef,
  type Principal,
  type StartedExecution,
} from '@noetl/runtime';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { ApiErrorDto } from '../errors/api-error.dto';
import { ExecutionTimelineDto } from './execution-timeline.dto';
import {
  CancelDto,
  ExecuteDto,
  ExecutionFilterDto,
  listEventsQueryOf,
  ListEventsQueryDto,
  ListExecutionsQueryDto,
  RerunDto,
  SignalDto,
} from './execution-requests.dto';
import {
  CancelledExecutionDto,
  DeliveredSignalDto,
  EventPageDto,
  ExecutionCountsDto,
  ExecutionDetailDto,
  ExecutionPageDto,
  StartedExecutionDto,
} from './execution-responses.dto';

@ApiTags('executions')
@Access('viewer')
@Controller('api')
export class ExecutionsController {
  constructor(private readonly executions: TenantExecutions) {}

  @Post('execute')
  @Access('developer')
  @ApiOperation({ summary: 'Start an execution of a registered playbook' })
  @ApiCreatedResponse({ type: StartedExecutionDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Not exactly one of path and catalog_id, or a malformed body' })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such playbook' })
  @ApiUnprocessableEntityResponse({ type: ApiErrorDto, description: 'The payload is not a JSON object (invalid_payload)' })
  execute(@Caller() caller: Principal, @Body() body: ExecuteDto): Promise<StartedExecution> {
    const payload = payloadOf(body);
    return this.executions.of(caller.scope).start({ ...playbookRefOf(body), ...(payload ? { payload } : {}) });
  }

  @Get('executions')
  @ApiOperation({ summary: 'Executions, newest first, a page at a time' })
  @ApiOkResponse({ type: ExecutionPageDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  list(@Caller() caller: Principal, @Query() query: ListExecutionsQueryDto): Promise<ExecutionPage> {
    return this.executions.of(caller.scope).list(query);
  }

  // Before executions/:id, which would take "counts" for an id.
  @Get('executions/counts')
  @ApiOperation({ summary: 'How many executions the filter selects, per status' })
  @ApiOkResponse({ type: ExecutionCountsDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  counts(@Caller() caller: Principal, @Query() query: ExecutionFilterDto): Promise<ExecutionCountsDto> {
    return this.executions.of(caller.scope).counts(query);
  }

  @Get('executions/:id')
  @ApiOperation({ summary: 'One execution: status, result or error, steps and loops' })
  @ApiOkResponse({ type: ExecutionDetailDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  get(@Caller() caller: Principal, @Param('id') id: string): Promise<ExecutionDetail> {
    return this.executions.of(caller.scope).get(id);
  }

  @Get('executions/:id/events')
  @ApiOperation({ summary: "An execution's events in ledger order, a page at a time" })
  @ApiOkResponse({ type: EventPageDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  events(@Caller() caller: Principal, @Param('id') id: string, @Query() query: ListEventsQueryDto): Promise<EventPage> {
    return this.executions.of(caller.scope).events(id, listEventsQueryOf(query));
  }

  @Get('executions/:id/timeline')
  @ApiOperation({
    summary:
      "An execution's Gantt: its commands, loop frame attempts, retries and waits, with workers and the events each began and ended with",
  })
  @ApiOkResponse({ type: ExecutionTimelineDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  async timeline(@Caller() caller: Principal, @Param('id') id: string): Promise<ExecutionTimelineDto> {
    return { bars: await this.executions.of(caller.scope).timeline(id) };
  }

  @Post('executions/:id/cancel')
  @Access('developer')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: 'Cancel an execution; its open commands and child executions are cancelled after' })
  @ApiAcceptedResponse({ type: CancelledExecutionDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'The execution already ended (already_terminal)' })
  async cancel(@Caller() caller: Principal, @Param('id') id: string, @Body() body: CancelDto): Promise<CancelledExecutionDto> {
    await this.executions.of(caller.scope).cancel(id, { ...body, ...(caller.subject !== LOCAL_SUBJECT ? { by: caller.subject } : {}) });
    return { execution_id: id, status: 'CANCELLED' };
  }

  @Post('executions/:id/rerun')
  @Access('developer')
  @ApiOperation({
    summary:
      'Re-run an ended execution as a new one linked to it, from the start or from a step (the results of the steps before it copied)',
  })
  @ApiCreatedResponse({ type: StartedExecutionDto })
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: 'from_step is not a step of the playbook, or the original never started it (invalid_request)',
  })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'The original still runs: cancel it first (execution_running)' })
  @ApiUnprocessableEntityResponse({ type: ApiErrorDto, description: 'The payload is not a JSON object (invalid_payload)' })
  rerun(@Caller() caller: Principal, @Param('id') id: string, @Body() body: RerunDto): Promise<StartedExecution> {
    const payload = payloadOf(body);
    return this.executions
      .of(caller.scope)
      .rerun(id, { ...(body.from_step !== undefined ? { from_step: body.from_step } : {}), ...(payload ? { payload } : {}) });
  }

  @Post('executions/:id/signals/:name')
  @Access('developer')
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: 'Send a signal: a step waiting for it (kind: wait) takes it, else it is kept until one does' })
  @ApiAcceptedResponse({ type: DeliveredSignalDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Not a signal name' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  @ApiConflictResponse({ type: ApiErrorDto, description: 'The execution already ended (already_terminal)' })
  @ApiUnprocessableEntityResponse({
    type: ApiErrorDto,
    description: 'The payload is larger than NOETL_PAYLOAD_INLINE_LIMIT (invalid_payload)',
  })
  // A parsed JSON body holds only JSON values, so the payload is Json.
  signal(
    @Caller() caller: Principal,
    @Param('id') id: string,
    @Param('name') name: string,
    @Body() body: SignalDto,
  ): Promise<DeliveredSignal> {
    return this.executions
      .of(caller.scope)
      .signal(id, name, body.payload === undefined ? {} : (body.payload as Json), body.idempotency_key);
  }
}

function playbookRefOf(body: ExecuteDto): PlaybookRef {
  if ((body.path === undefined) === (body.catalog_id === undefined)) {
    throw new RuntimeError('invalid_request', 'give exactly one of "path" and "catalog_id"');
  }
  return {
    ...(body.path !== undefined ? { path: body.path } : {}),
    ...(body.catalog_id !== undefined ? { catalog_id: body.catalog_id } : {}),
    ...(body.version !== undefined ? { version: body.version } : {}),
  };
}

function payloadOf(body: ExecuteDto | RerunDto): JsonObject | undefined {
  const workload = 'workload' in body ? body.workload : undefined;
  if (body.payload !== undefined && workload !== undefined) {
    throw new RuntimeError('invalid_request', 'give "payload" or its alias "workload", not both');
  }
  // `null` is kept (and rejected below): only an absent payload means none.
  const payload = body.payload !== undefined ? body.payload : workload;
  if (payload === undefined) return undefined;
  if (!isJsonObject(payload))
    throw new RuntimeError('invalid_payload', 'payload must be a JSON object (it is merged over the playbook workload)');
  return payload;
}

/** A parsed JSON body holds only JSON values, so an object here is a JSON object. */
function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
