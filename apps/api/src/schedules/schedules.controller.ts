import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ScheduleService, type ScheduleView, type TriggeredSchedule } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { CreateScheduleDto, ListSchedulesQueryDto, UpdateScheduleDto } from './schedule-requests.dto';
import { ScheduleListDto, ScheduleViewDto, TriggeredScheduleDto } from './schedule-responses.dto';

@ApiTags('schedules')
@Controller('api/schedules')
export class SchedulesController {
  constructor(private readonly schedules: ScheduleService) {}

  @Post()
  @ApiOperation({ summary: 'Start a registered playbook on a cron expression or an interval' })
  @ApiCreatedResponse({ type: ScheduleViewDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'An invalid schedule; `details` lists every problem as {path, message}' })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such playbook (or version)' })
  create(@Body() body: CreateScheduleDto): Promise<ScheduleView> {
    return this.schedules.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'Every schedule, oldest first' })
  @ApiOkResponse({ type: ScheduleListDto })
  list(@Query() query: ListSchedulesQueryDto): Promise<ScheduleListDto> {
    return this.schedules.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One schedule and where its fire times stand' })
  @ApiOkResponse({ type: ScheduleViewDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  get(@Param('id') id: string): Promise<ScheduleView> {
    return this.schedules.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change a schedule; pause and resume it with {paused: true|false}' })
  @ApiOkResponse({ type: ScheduleViewDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  update(@Param('id') id: string, @Body() body: UpdateScheduleDto): Promise<ScheduleView> {
    return this.schedules.update(id, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a schedule (its executions stay); answers the deleted schedule' })
  @ApiOkResponse({ type: ScheduleViewDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  delete(@Param('id') id: string): Promise<ScheduleView> {
    return this.schedules.delete(id);
  }

  @Post(':id/trigger')
  @ApiOperation({ summary: 'Start the schedule\'s playbook now, paused or not, whatever runs' })
  @ApiCreatedResponse({ type: TriggeredScheduleDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  trigger(@Param('id') id: string): Promise<TriggeredSchedule> {
    return this.schedules.trigger(id);
  }
}
