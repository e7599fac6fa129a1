import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { CredentialSummary, Principal } from '@noetl/runtime';
import { ApiErrorDto } from '../errors/api-error.dto';
import { CredentialListDto, CredentialSummaryDto, CredentialUsesDto, CredentialUsesQueryDto, PutCredentialDto } from './credential.dto';
import { Access } from '../auth/access.decorator';
import { Caller } from '../auth/caller.decorator';
import { TenantCredentials } from '@noetl/platform';

/** Credentials are written and listed here, never read back: only a worker holding a lease resolves one. */
@ApiTags('credentials')
@Access('developer')
@Controller('api/credentials')
export class CredentialsController {
  constructor(private readonly credentials: TenantCredentials) {}

  @Post()
  @Access('operator')
  @ApiOperation({ summary: 'Create or replace a credential (encrypted at rest)' })
  @ApiCreatedResponse({ type: CredentialSummaryDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Invalid name or body' })
  @ApiServiceUnavailableResponse({ type: ApiErrorDto, description: 'NOETL_ENCRYPTION_KEY is not set (credentials_locked)' })
  put(@Caller() caller: Principal, @Body() body: PutCredentialDto): Promise<CredentialSummary> {
    return this.credentials.of(caller.scope).put(body);
  }

  @Get()
  @ApiOperation({ summary: 'Every credential, without its data' })
  @ApiOkResponse({ type: CredentialListDto })
  async list(@Caller() caller: Principal): Promise<CredentialListDto> {
    return { credentials: await this.credentials.of(caller.scope).list() };
  }

  @Get(':name')
  @ApiOperation({ summary: 'One credential, without its data' })
  @ApiOkResponse({ type: CredentialSummaryDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  get(@Caller() caller: Principal, @Param('name') name: string): Promise<CredentialSummary> {
    return this.credentials.of(caller.scope).get(name);
  }

  @Get(':name/uses')
  @Access('operator')
  @ApiOperation({
    summary: 'The audit of a credential: every time it was handed to a worker, newest first (execution, playbook path, step, worker)',
  })
  @ApiOkResponse({ type: CredentialUsesDto })
  async uses(@Caller() caller: Principal, @Param('name') name: string, @Query() query: CredentialUsesQueryDto): Promise<CredentialUsesDto> {
    return { uses: await this.credentials.of(caller.scope).uses(name, query.limit ?? 100) };
  }

  @Delete(':name')
  @Access('operator')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Delete a credential' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ApiErrorDto })
  delete(@Caller() caller: Principal, @Param('name') name: string): Promise<void> {
    return this.credentials.of(caller.scope).delete(name);
  }
}
