import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NoetlConfig } from '@noetl/config';
import { SwaggerModule } from '@nestjs/swagger';
import { useBodyParsers } from './body-parsers';
import { ApiExceptionFilter } from './errors/api-exception.filter';
import { ApiValidationPipe } from './input/api-validation.pipe';
import { refuseUnsafeInput } from './input/unsafe-input';
import { openApiDocument } from './openapi-document';
import { traceRequests } from './tracing/trace-requests';

/** What every instance of the API shares, in tests too: request spans, body parsers, validation, the error body, Swagger. Call before `init()`. */
export function configureApi(app: NestExpressApplication, config: NoetlConfig): void {
  app.use(traceRequests);
  useBodyParsers(app, config.limits.inputBytes);
  app.use(refuseUnsafeInput);
  app.useGlobalPipes(new ApiValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter());
  SwaggerModule.setup('docs', app, openApiDocument(app), { jsonDocumentUrl: 'docs-json' });
}
