import type { NestExpressApplication } from '@nestjs/platform-express';
import { text, type NextFunction, type Request, type Response } from 'express';

/** Worker reports carry tool results inline up to the payload threshold and above: far past express's 100 kB default. */
export const JSON_BODY_LIMIT = '64mb';
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];
/** The one route that takes a playbook as its raw YAML text (DESIGN.md s6). */
export const YAML_BODY_ROUTE = '/api/catalog/register';

/**
 * Registered before `app.init()`: Nest then finds a parser named `jsonParser`
 * in place and skips its own 100 kB one, so no `bodyParser: false` is needed
 * where the app is created. A YAML body on the register route becomes
 * `{content: <text>}`, so both forms of that route meet one DTO.
 */
export function useBodyParsers(app: NestExpressApplication): void {
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  app.use(YAML_BODY_ROUTE, text({ type: YAML_MEDIA_TYPES, limit: JSON_BODY_LIMIT }), yamlTextAsContent);
}

function yamlTextAsContent(request: Request, _response: Response, next: NextFunction): void {
  if (typeof request.body === 'string') request.body = { content: request.body };
  next();
}
