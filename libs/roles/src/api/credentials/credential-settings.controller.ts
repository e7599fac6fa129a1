import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TenantCredentials } from '@noetl/platform';
import type { CredentialSettings, Principal } from '@noetl/runtime';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { ApiErrorDto } from '../errors/api-error.dto';
import { CredentialSettingsDto } from './credential.dto';

/** The tenant's credential settings: whether every credential must be bound to the playbooks that may use it. */
@ApiTags('credentials')
@Access('developer')
@Controller('api/settings/credentials')
export class CredentialSettingsController {
  constructor(private readonly credentials: TenantCredentials) {}

  @Get()
  @ApiOperation({ summary: "The tenant's credential settings" })
  @ApiOkResponse({ type: CredentialSettingsDto })
  get(@Caller() caller: Principal): Promise<CredentialSettings> {
    return this.credentials.of(caller.scope).settings();
  }

  @Put()
  @Access('admin')
  @ApiOperation({
    summary: "Change the tenant's credential settings (require_binding: a credential naming no paths is refused to every playbook)",
  })
  @ApiOkResponse({ type: CredentialSettingsDto })
  @ApiBadRequestResponse({ type: ApiErrorDto })
  put(@Caller() caller: Principal, @Body() body: CredentialSettingsDto): Promise<CredentialSettings> {
    return this.credentials.of(caller.scope).updateSettings(body);
  }
}
