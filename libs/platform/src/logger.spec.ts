import { Writable } from 'node:stream';
import pino from 'pino';
import { logsArePretty, PinoNestLogger } from './logger';

/** A pino logger at `level` whose lines are kept as parsed objects. */
function capturing(level: string): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

describe('logsArePretty', () => {
  it.each([
    ['auto', true, true],
    ['auto', false, false],
    ['pretty', false, true],
    ['json', true, false],
  ] as const)('LOG_FORMAT=%s to a terminal=%s: pretty=%s', (format, terminal, pretty) => {
    expect(logsArePretty(format, terminal)).toBe(pretty);
  });
});

describe('PinoNestLogger', () => {
  const bootLines: [string, string][] = [
    ['Starting Nest application...', 'NestFactory'],
    ['ApiModule dependencies initialized', 'InstanceLoader'],
    ['ExecutionsController {/api/executions}:', 'RoutesResolver'],
    ['Mapped {/api/executions, POST} route', 'RouterExplorer'],
    ['Nest application successfully started', 'NestApplication'],
    ['Nest microservice successfully started', 'NestMicroservice'],
  ];

  it('keeps Nest module wiring and route mapping out of an info log', () => {
    const { logger, lines } = capturing('info');
    const nest = new PinoNestLogger(logger);
    for (const [message, context] of bootLines) nest.log(message, context);
    expect(lines).toEqual([]);
  });

  it('shows them at debug', () => {
    const { logger, lines } = capturing('debug');
    const nest = new PinoNestLogger(logger);
    for (const [message, context] of bootLines) nest.log(message, context);
    expect(lines.map((line) => [line.msg, line.context, line.level])).toEqual(
      bootLines.map(([message, context]) => [message, context, 20]),
    );
  });

  it('logs what the application itself says at info, and errors with their trace', () => {
    const { logger, lines } = capturing('info');
    const nest = new PinoNestLogger(logger);
    nest.log('cache warmed', 'CatalogService');
    nest.error('handler failed', 'Error: boom\n    at x', 'ExceptionsHandler');
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, context: 'CatalogService', msg: 'cache warmed' }),
      expect.objectContaining({ level: 50, context: 'ExceptionsHandler', trace: 'Error: boom\n    at x', msg: 'handler failed' }),
    ]);
  });
});
