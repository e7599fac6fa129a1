import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { useBodyParsers } from './body-parsers';
import { ApiExceptionFilter } from './errors/api-exception.filter';
import { ApiValidationPipe } from './input/api-validation.pipe';
import { operationId } from './openapi/operation-ids';
import { refuseUnsafeInput } from './input/unsafe-input';

/** What every instance of the API shares, in tests too: body parsers, validation, the error body, Swagger. Call before `init()`. */
export function configureApi(app: NestExpressApplication): void {
  useBodyParsers(app);
  app.use(refuseUnsafeInput);
  app.useGlobalPipes(new ApiValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('NoETL runtime')
      .setDescription('Durable, event-sourced playbook runtime. Every /api route takes Authorization: Bearer <API key or token>.')
      .setVersion('0.1')
      // bearerFormat is only a hint, and Nest's default says JWT: most callers present an API key.
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'An API key (noetl_<id>_<secret>) or, with OIDC configured, a JWT' })
      .build(),
    { operationIdFactory: operationId },
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
}
