import { context } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type AuthenticatedRequest, type CredentialGuard, McpUnauthorizedException } from '@app/credentials';
import type { McpEndpoint } from '@app/mcp';
import { setRouteTemplate } from '@app/observability';
import { MCP_PATH } from './cors.middleware';
import type { McpRouteEnhancers } from './mcp-route-enhancers';

/** Answers an error as the route's filters do (`McpRouteEnhancers.answer`). */
export interface ErrorAnswer {
  answer(error: unknown, req: Request, res: Response): void;
}

/** An Express middleware, or an error-handling one (four parameters), as `app.use` takes them. */
export type Middleware = RequestHandler | ((err: unknown, req: Request, res: Response, next: NextFunction) => void);

/**
 * The agent credential of `POST /api/mcp`, checked before the body is read (docs/mcp.md, "A
 * request's path"). A request without a live agent token is answered the 401 at once: its body
 * is neither buffered nor parsed, so a caller without a credential cannot make the service read
 * and parse a megabyte. Every other outcome goes on to the body middleware: a live token, and a
 * check that failed for another reason (the database unavailable), which the endpoint answers
 * once the body is read, so that its JSON-RPC error carries the message's id. The outcome stays
 * with the request (`CredentialGuard.authenticateAgentRequest`) for the endpoint or Nest's guard.
 */
export function agentCheckFirst(
  guard: CredentialGuard,
  errors: ErrorAnswer,
  refused401?: (refusal: McpUnauthorizedException, req: Request) => void,
): (req: Request, res: Response, next: NextFunction) => Promise<void> {
  return (req, res, next) =>
    guard.authenticateAgentRequest(req as AuthenticatedRequest).then(
      // A client gone while its credential was looked up is answered no further: the body parser
      // takes a request it can no longer answer for one already read and would pass it on without a body.
      () => (gone(req) ? undefined : next()),
      (refused: unknown) => {
        if (!(refused instanceof McpUnauthorizedException)) return gone(req) ? undefined : next();
        setRouteTemplate(req, MCP_PATH);
        refused401?.(refused, req);
        errors.answer(refused, req, res);
      },
    );
}

/** The request's connection is closed or closing: nothing sent now would reach the client. */
function gone(req: Request): boolean {
  return req.destroyed || !req.socket?.writable;
}

/**
 * `POST /api/mcp` served ahead of Nest's routes, which agents call for every message. An Express
 * route registered right after the origin check and CORS (so traces show it as the request's
 * route handler, as they show Nest's), it runs, in order, the very middleware the application
 * runs for this path (`stack`: the layers of `requestMiddleware` that apply to it), then the
 * endpoint itself (`McpEndpoint.serve`) with Nest's global enhancers as `McpRouteEnhancers`
 * runs them (the credential guard and the exception filters by the route itself; any other
 * global guard, interceptor, pipe or filter as Nest would), and answers errors as the route's
 * filters do. What it leaves out is only the walk through the router's other layers and Nest's
 * per-route machinery.
 *
 * It takes exactly `POST /api/mcp` (no query string, no trailing slash); every other request
 * goes on to the application's chain and Nest's `McpController`, which behaves the same.
 */
export function mcpRoute(endpoint: McpEndpoint, enhancers: McpRouteEnhancers, stack: readonly Middleware[]): RequestHandler {
  return (req, res, next) => {
    // Labelled as the application's chain labels it: only a request that gets past the body
    // middleware reaches a route (a refused body is `unmatched` there), so not by this one yet.
    (req as { route?: unknown }).route = undefined;
    if (req.url !== MCP_PATH) return next();
    // The body arrives through stream events, outside this handler's trace context: what follows
    // runs in it again (a no-op without tracing).
    const serve = context.bind(context.active(), () => {
      setRouteTemplate(req, MCP_PATH);
      const served = enhancers.none
        ? endpoint.serve(req as AuthenticatedRequest, res)
        : enhancers.run(req, res, () => endpoint.serve(req as AuthenticatedRequest, res));
      served.catch((thrown: unknown) => enhancers.answer(thrown, req, res));
    });
    runStack(stack, req, res, (error?: unknown) => {
      // An error no middleware answered goes on as it would from the application's own chain.
      if (error !== undefined) return next(error);
      serve();
    });
  };
}

/**
 * Runs `stack` as Express runs a sequence of `app.use` layers: `next()` goes to the next plain
 * middleware, `next(error)` to the next error-handling one (four parameters), a throw or a
 * returned promise that rejects counts as `next(error)`; `done` is called when the stack is
 * passed through (with the error, if any).
 */
export function runStack(stack: readonly Middleware[], req: Request, res: Response, done: (error?: unknown) => void): void {
  let index = 0;
  const next = (error?: unknown): void => {
    // As in Express, a falsy value is no error. (next('route') and next('router') are not used by these layers.)
    const failed = Boolean(error);
    for (;;) {
      const layer = stack[index++];
      if (!layer) return done(failed ? error : undefined);
      if (failed !== (layer.length === 4)) continue;
      let returned: unknown;
      try {
        if (failed) returned = (layer as (e: unknown, q: Request, s: Response, n: NextFunction) => unknown)(error, req, res, next);
        else returned = (layer as (q: Request, s: Response, n: NextFunction) => unknown)(req, res, next);
      } catch (thrown) {
        next(thrown);
        return;
      }
      if (returned instanceof Promise) returned.catch((rejected: unknown) => next(rejected || new Error('Rejected promise')));
      return;
    }
  };
  next();
}
