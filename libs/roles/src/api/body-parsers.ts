import type { NestExpressApplication } from '@nestjs/platform-express';
import { json, text, type NextFunction, type Request, type Response } from 'express';

/** Worker reports carry tool results inline up to the payload threshold and above: far past express's 100 kB default. */
export const JSON_BODY_LIMIT = '64mb';
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];
/** The one route that takes a playbook as its raw YAML text (DESIGN.md s6). */
export const YAML_BODY_ROUTE = '/api/catalog/register';

/**
 * The routes where users send inputs (an execution's payload, a signal's, a
 * schedule's, a cancel's reason): NOETL_MAX_INPUT_BYTES bounds their bodies,
 * so a huge input is refused before it is parsed (parsing 40 MiB of JSON
 * would hold the event loop for seconds) and never reaches the append-only ledger.
 */
export const USER_INPUT_ROUTES = ['/api/execute', '/api/executions', '/api/schedules'];

/**
 * Registered before `app.init()`: Nest then finds a parser named `jsonParser`
 * in place and skips its own 100 kB one, so no `bodyParser: false` is needed
 * where the app is created. The user input routes parse first, with their
 * own limit (a body parsed once is not parsed again). A YAML body on the
 * register route becomes `{content: <text>}`, so both forms of that route
 * meet one DTO.
 */
export function useBodyParsers(app: NestExpressApplication, inputLimitBytes: number): void {
  app.use(USER_INPUT_ROUTES, json({ limit: inputLimitBytes }), inputTooLarge(inputLimitBytes));
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  app.use(YAML_BODY_ROUTE, text({ type: YAML_MEDIA_TYPES, limit: JSON_BODY_LIMIT }), yamlTextAsContent);
}

/** Says which limit a refused input passed, and how to raise it. */
function inputTooLarge(limit: number) {
  return (error: unknown, _request: Request, _response: Response, next: NextFunction): void => {
    if (isTooLarge(error)) {
      error.message = `the request body is over the input limit of ${limit} bytes (NOETL_MAX_INPUT_BYTES); nothing was written`;
    }
    next(error);
  };
}

function isTooLarge(error: unknown): error is { type: string; message: string } {
  return typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'entity.too.large';
}

function yamlTextAsContent(request: Request, _response: Response, next: NextFunction): void {
  if (typeof request.body === 'string') request.body = { content: request.body };
  next();
}
