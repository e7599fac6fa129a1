import { type ArgumentsHost, BadRequestException, Logger } from '@nestjs/common';
import { RuntimeError, type RuntimeErrorCode } from '@noetl/runtime';
import { InDoubtCommitError, ObjectStoreError } from '@noetl/storage';
import { ApiExceptionFilter } from './api-exception.filter';

/** Runs the filter on `error` and returns what it answered. */
function answer(error: unknown): { status: number; body: unknown; headers?: Record<string, string> } {
  const sent: { status: number; body: unknown; headers?: Record<string, string> } = { status: 0, body: undefined };
  const response = {
    setHeader(name: string, value: string) {
      sent.headers = { ...sent.headers, [name]: value };
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  new ApiExceptionFilter().catch(error, host);
  return sent;
}

describe('ApiExceptionFilter', () => {
  it.each<[RuntimeErrorCode, number]>([
    ['not_found', 404],
    ['invalid_payload', 422],
    ['invalid_request', 400],
    ['already_terminal', 409],
    ['already_claimed', 409],
    ['lease_lost', 409],
    ['credentials_locked', 503],
  ])('answers RuntimeError %s with %i and the one body', (code, status) => {
    expect(answer(new RuntimeError(code, 'what happened'))).toEqual({ status, body: { code, message: 'what happened' } });
  });

  it('keeps the details of a runtime error', () => {
    expect(answer(new RuntimeError('invalid_request', 'bad', { field: 'x' })).body).toEqual({
      code: 'invalid_request',
      message: 'bad',
      details: { field: 'x' },
    });
  });

  it('answers invalid_playbook with 422 and its problems as `errors`', () => {
    const problems = [{ path: 'workflow[0].next', line: 9, column: 11, message: 'unknown step "nowhere"' }];
    expect(answer(new RuntimeError('invalid_playbook', 'playbook is invalid', problems))).toEqual({
      status: 422,
      body: { code: 'invalid_playbook', message: 'playbook is invalid', errors: problems },
    });
  });

  it('answers validation failures with 400 bad_request, each message in details', () => {
    expect(answer(new BadRequestException(['a must be a string', 'b should not exist']))).toEqual({
      status: 400,
      body: {
        code: 'bad_request',
        message: 'a must be a string; b should not exist',
        details: ['a must be a string', 'b should not exist'],
      },
    });
  });

  it('answers an object store outage with 503 unavailable, naming the object', () => {
    const message = 'put s3://noetl-payloads/noetl/default/default/ab12 failed: connect ECONNREFUSED 10.0.0.7:9000';
    expect(answer(new ObjectStoreError(message))).toEqual({ status: 503, body: { code: 'unavailable', message } });
  });

  it("answers a statement the database did not answer in time (pg's query_timeout) with 503 unavailable, logging nothing", () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(answer(new Error('Query read timeout'))).toEqual({
      status: 503,
      body: { code: 'unavailable', message: 'the database did not answer in time; retry shortly' },
    });
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
  });

  it('answers a request that found every database connection busy past the pool wait with 503 busy and Retry-After, logging nothing', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(answer(new Error('timeout exceeded when trying to connect'))).toEqual({
      status: 503,
      body: { code: 'busy', message: 'every database connection is busy; retry shortly' },
      headers: { 'Retry-After': '1' },
    });
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
  });

  it('answers a body-parser client error (an exposed http error) with its status', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), { status: 413, expose: true });
    expect(answer(tooLarge)).toEqual({ status: 413, body: { code: 'payload_too_large', message: 'request entity too large' } });
  });

  it('answers anything else with 500 and an error id, logging the error, never its message', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { status, body } = answer(new Error('password=hunter2 leaked into a driver message'));
    expect(status).toBe(500);
    expect(body).toEqual({ code: 'internal', message: expect.stringMatching(/^internal error \(id [0-9a-f-]{36}\)$/) });
    expect(logged).toHaveBeenCalledTimes(1);
    logged.mockRestore();
  });

  it('answers a lost database connection (a failover, a restart: 57P01, a reset) with 503 and Retry-After, not 500', () => {
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    for (const error of [shutdown, reset, new Error('Connection terminated unexpectedly')]) {
      expect(answer(error)).toEqual({
        status: 503,
        body: { code: 'database_unavailable', message: 'the database is unreachable or failing over; retry shortly' },
        headers: { 'Retry-After': '1' },
      });
    }
  });

  it('answers a COMMIT whose reply was lost with 503 in_doubt: it may have been applied', () => {
    expect(answer(new InDoubtCommitError(new Error('Connection terminated unexpectedly')))).toEqual({
      status: 503,
      body: {
        code: 'in_doubt',
        message:
          'the database connection was lost as the change committed: it may have been applied; retry with the same idempotency key, or check before repeating it',
      },
      headers: { 'Retry-After': '1' },
    });
  });

  it('answers a lock waited for past lock_timeout (SQLSTATE 55P03) with 503 busy and Retry-After', () => {
    const lockTimeout = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    expect(answer(lockTimeout)).toEqual({
      status: 503,
      body: { code: 'busy', message: 'the work this request touches is busy; retry shortly' },
      headers: { 'Retry-After': '1' },
    });
  });
});
