import { Agent, type Dispatcher, interceptors, request } from 'undici';
import { CallError } from '@noetl/dsl';
import type { Tool, ToolContext } from '../tool';
import { resolveAuth } from '../shared/resolve-auth';
import { SecretSet } from '../shared/secret-set';
import { throwIfAborted } from '../shared/tool-errors';
import { authHeaders } from './auth-headers';
import {
  buildHttpRequest,
  DEFAULT_HTTP_TIMEOUT_SECONDS,
  MAX_HTTP_TIMEOUT_SECONDS,
  type HttpRequestPlan,
  withDefaultHeaders,
} from './build-http-request';
import { classifyHttpFailure } from './classify-http-failure';
import { flattenHeaders, type HttpResult, httpStatusError, shapeHttpResult } from './shape-http-response';

export interface HttpToolOptions {
  /** A dispatcher to send through (not closed by the tool). Default: an own keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** Redirects the default dispatcher follows (default 10; python-requests follows redirects too). */
  maxRedirections?: number;
  /** Timeout when the config has none, in seconds (default 30). */
  defaultTimeoutSeconds?: number;
  /** Ceiling of any `timeout`, in seconds (default 300): a larger one is capped, and the timeout message says so. */
  maxTimeoutSeconds?: number;
  /** The clock for `Retry-After` dates and `elapsed` (default Date.now). */
  now?: () => number;
}

/** `kind: http`: one request; the result envelope, or a classified error for status >= 400 and transport failures. */
export class HttpTool implements Tool {
  readonly kind = 'http';
  private readonly dispatcher: Dispatcher;
  private readonly ownAgent?: Agent;
  private readonly now: () => number;

  constructor(private readonly options: HttpToolOptions = {}) {
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
    } else {
      this.ownAgent = new Agent();
      this.dispatcher = this.ownAgent.compose(interceptors.redirect({ maxRedirections: options.maxRedirections ?? 10 }));
    }
    this.now = options.now ?? Date.now;
  }

  async run(config: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    throwIfAborted(ctx.signal, 'http');
    const plan = buildHttpRequest(
      config,
      this.options.defaultTimeoutSeconds ?? DEFAULT_HTTP_TIMEOUT_SECONDS,
      this.options.maxTimeoutSeconds ?? MAX_HTTP_TIMEOUT_SECONDS,
    );
    const secrets = new SecretSet();
    if (config.auth !== undefined && config.auth !== null) {
      const { data, label } = await resolveAuth('http', config.auth, ctx);
      const headers = authHeaders(data, label);
      secrets.add(data);
      secrets.add(headers);
      plan.headers = withDefaultHeaders(plan.headers, headers);
    }
    try {
      return await this.send(plan, ctx);
    } catch (err) {
      // A server may echo what it was sent; credential values never leave in a message.
      throw err instanceof CallError ? secrets.callError(err) : err;
    }
  }

  private async send(plan: HttpRequestPlan, ctx: ToolContext): Promise<HttpResult> {
    const timeout = AbortSignal.timeout(plan.timeoutMs);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    const started = this.now();
    let response: Dispatcher.ResponseData;
    let text: string;
    try {
      response = await request(plan.url, {
        method: plan.method as Dispatcher.HttpMethod,
        headers: plan.headers,
        body: plan.body,
        signal,
        dispatcher: this.dispatcher,
      });
      text = await response.body.text();
    } catch (err) {
      throw new CallError(
        classifyHttpFailure(err, {
          method: plan.method,
          url: plan.url,
          timeoutText: plan.timeoutText,
          cancelled: ctx.signal.aborted,
          timedOut: timeout.aborted,
        }),
      );
    }
    const finished = this.now();
    const result = shapeHttpResult({
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
      url: finalUrl(response, plan.url),
      elapsedMs: finished - started,
      text,
    });
    if (response.statusCode >= 400) throw httpStatusError(result, plan.method, response.statusText, finished);
    return result;
  }

  async close(): Promise<void> {
    await this.ownAgent?.close();
  }
}

/** After redirects, the last URL of the redirect history. */
function finalUrl(response: Dispatcher.ResponseData, requested: string): string {
  const context: unknown = response.context;
  if (typeof context === 'object' && context !== null && 'history' in context && Array.isArray(context.history)) {
    const last: unknown = context.history[context.history.length - 1];
    if (last instanceof URL) return last.toString();
  }
  return requested;
}
