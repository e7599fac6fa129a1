import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Principal, RegisteredPlaybook } from '@noetl/runtime';
import { YAML_MEDIA_TYPES } from '../body-parsers';
import { ApiErrorDto, InvalidPlaybookErrorDto } from '../errors/api-error.dto';
import {
  CatalogListDto,
  CatalogVersionsDto,
  CatalogVersionsQueryDto,
  PlaybookSourceDto,
  PlaybookSourceQueryDto,
  RegisteredPlaybookDto,
  RegisterPlaybookDto,
} from './catalog.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantCatalogs } from '@noetl/platform';

@ApiTags('catalog')
@Access('viewer')
@Controller('api/catalog')
export class CatalogController {
  constructor(private readonly catalog: TenantCatalogs) {}

  @Post('register')
  @Access('developer')
  @ApiOperation({ summary: 'Register a playbook: a new version of its path, unless the content is unchanged' })
  @ApiConsumes('application/json', ...YAML_MEDIA_TYPES)
  @ApiBody({ type: RegisterPlaybookDto, description: 'JSON {content}, or the YAML text itself with a YAML content type' })
  @ApiCreatedResponse({ type: RegisteredPlaybookDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No content' })
  @ApiUnprocessableEntityResponse({ type: InvalidPlaybookErrorDto, description: 'The playbook is invalid; nothing was stored' })
  register(@Caller() caller: Principal, @Body() body: RegisterPlaybookDto): Promise<RegisteredPlaybook> {
    return this.catalog.of(caller.scope).register(body.content);
  }

  @Get()
  @ApiOperation({ summary: 'The latest version of every registered playbook' })
  @ApiOkResponse({ type: CatalogListDto })
  async list(@Caller() caller: Principal): Promise<CatalogListDto> {
    return { entries: await this.catalog.of(caller.scope).list() };
  }

  @Get('versions')
  @ApiOperation({ summary: 'Every version of one playbook path, newest first' })
  @ApiOkResponse({ type: CatalogVersionsDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No path' })
  async versions(@Caller() caller: Principal, @Query() query: CatalogVersionsQueryDto): Promise<CatalogVersionsDto> {
    return { path: query.path, versions: await this.catalog.of(caller.scope).versions(query.path) };
  }

  @Get('playbook')
  @ApiOperation({ summary: 'One version of a playbook (default the latest): its YAML as registered and its graph of steps and arcs' })
  @ApiOkResponse({ type: PlaybookSourceDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'No path, or not a version' })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such playbook or version' })
  playbook(@Caller() caller: Principal, @Query() query: PlaybookSourceQueryDto): Promise<PlaybookSourceDto> {
    return this.catalog.of(caller.scope).source({ path: query.path, ...(query.version !== undefined ? { version: query.version } : {}) });
  }
}
