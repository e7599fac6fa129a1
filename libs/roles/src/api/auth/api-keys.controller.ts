import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeys, type CreatedApiKey, type Principal } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { Access } from './access.decorator';
import { ApiKeyDto, ApiKeyListDto, CreateApiKeyDto, CreatedApiKeyDto, PrincipalDto } from './api-key.dto';
import { Caller } from './caller.decorator';

/** The API keys of the caller's tenant and organization: an admin makes, lists and revokes them. */
@ApiTags('auth')
@Access('admin')
@Controller('api')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeys) {}

  @Get('auth/me')
  @Access('authenticated')
  @ApiOperation({ summary: 'Who the presented key or token stands for: tenant, organization, role' })
  @ApiOkResponse({ type: PrincipalDto })
  me(@Caller() caller: Principal): PrincipalDto {
    return { tenant_id: caller.scope.tenantId, organization_id: caller.scope.organizationId, role: caller.role, subject: caller.subject };
  }

  @Post('keys')
  @ApiOperation({ summary: "Make an API key in the caller's tenant; the key is in this answer only" })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  create(@Caller() caller: Principal, @Body() body: CreateApiKeyDto): Promise<CreatedApiKey> {
    return this.keys.create({ scope: caller.scope, role: body.role, name: body.name, createdBy: caller.subject });
  }

  @Get('keys')
  @ApiOperation({ summary: "The tenant's API keys, revoked ones included, never their secrets" })
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(@Caller() caller: Principal): Promise<ApiKeyListDto> {
    return { keys: await this.keys.list(caller.scope) };
  }

  @Delete('keys/:id')
  @ApiOperation({ summary: 'Revoke a key of the tenant: every process refuses it within seconds' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No live key of this id in the tenant' })
  revoke(@Caller() caller: Principal, @Param('id') id: string): Promise<ApiKeyDto> {
    return this.keys.revoke(id, caller.scope);
  }
}
