import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal, ScheduleView, TriggeredSchedule } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { CreateScheduleDto, ListSchedulesQueryDto, UpdateScheduleDto } from './schedule-requests.dto';
import { ScheduleListDto, ScheduleViewDto, TriggeredScheduleDto } from './schedule-responses.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantSchedules } from '@noetl/platform';

@ApiTags('schedules')
@Access('viewer')
@Controller('api/schedules')
export class SchedulesController {
  constructor(private readonly schedules: TenantSchedules) {}

  @Post()
  @Access('developer')
  @ApiOperation({ summary: 'Start a registered playbook on a cron expression or an interval' })
  @ApiCreatedResponse({ type: ScheduleViewDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'An invalid schedule; `details` lists every problem as {path, message}' })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such playbook (or version)' })
  create(@Caller() caller: Principal, @Body() body: CreateScheduleDto): Promise<ScheduleView> {
    return this.schedules.of(caller.scope).create(body);
  }

  @Get()
  @ApiOperation({ summary: 'Every schedule, oldest first' })
  @ApiOkResponse({ type: ScheduleListDto })
  list(@Caller() caller: Principal, @Query() query: ListSchedulesQueryDto): Promise<ScheduleListDto> {
    return this.schedules.of(caller.scope).list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One schedule and where its fire times stand' })
  @ApiOkResponse({ type: ScheduleViewDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  get(@Caller() caller: Principal, @Param('id') id: string): Promise<ScheduleView> {
    return this.schedules.of(caller.scope).get(id);
  }

  @Patch(':id')
  @Access('developer')
  @ApiOperation({ summary: 'Change a schedule; pause and resume it with {paused: true|false}' })
  @ApiOkResponse({ type: ScheduleViewDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  update(@Caller() caller: Principal, @Param('id') id: string, @Body() body: UpdateScheduleDto): Promise<ScheduleView> {
    return this.schedules.of(caller.scope).update(id, body);
  }

  @Delete(':id')
  @Access('developer')
  @ApiOperation({ summary: 'Delete a schedule (its executions stay); answers the deleted schedule' })
  @ApiOkResponse({ type: ScheduleViewDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  delete(@Caller() caller: Principal, @Param('id') id: string): Promise<ScheduleView> {
    return this.schedules.of(caller.scope).delete(id);
  }

  @Post(':id/trigger')
  @Access('developer')
  @ApiOperation({ summary: "Start the schedule's playbook now, paused or not, whatever runs" })
  @ApiCreatedResponse({ type: TriggeredScheduleDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  trigger(@Caller() caller: Principal, @Param('id') id: string): Promise<TriggeredSchedule> {
    return this.schedules.of(caller.scope).trigger(id);
  }
}
