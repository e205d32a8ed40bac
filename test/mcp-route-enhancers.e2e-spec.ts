import {
  type ArgumentMetadata,
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  Catch,
  type ExceptionFilter,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  type PipeTransform,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { Request, Response } from 'express';
import { tap } from 'rxjs';
import { McpEndpoint } from '@app/mcp';
import { createAgentToken, createOrganization, createProject } from './factories';
import { MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

/** What the throwaway enhancers saw, per request id header: which ran, and on which route. */
const ran = new Map<string, string[]>();
const note = (req: Request, what: string) => {
  const id = req.headers['x-probe'];
  if (typeof id !== 'string') return;
  ran.set(id, [...(ran.get(id) ?? []), what]);
};
/** Nest's route is an Express route of the router; the endpoint's own route leaves `req.route` unset. */
const routeOf = (req: Request) => (req.route ? 'nest' : 'own');

class ProbeRefusal extends Error {}

@Injectable()
class ProbeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    note(req, `guard:${routeOf(req)}`);
    if (req.headers['x-probe-refuse'] === 'guard') throw new ProbeRefusal('refused by the probe guard');
    return req.headers['x-probe-refuse'] !== 'deny';
  }
}

@Injectable()
class ProbeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    const req = context.switchToHttp().getRequest<Request>();
    note(req, 'interceptor:before');
    return next.handle().pipe(tap({ complete: () => note(req, 'interceptor:after') }));
  }
}

@Injectable()
class ProbePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'body' && value && typeof value === 'object') {
      const probe = (value as { params?: { _meta?: { probe?: string } } }).params?._meta?.probe;
      if (probe) ran.set(probe, [...(ran.get(probe) ?? []), 'pipe']);
    }
    return value;
  }
}

@Catch(ProbeRefusal)
class ProbeFilter implements ExceptionFilter {
  catch(exception: ProbeRefusal, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    note(req, 'filter');
    host.switchToHttp().getResponse<Response>().status(418).json({ refused: exception.message });
  }
}

const META = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };

/**
 * Nest's global enhancers are never skipped by the endpoint's own route: a throwaway global
 * guard, interceptor, pipe and filter each run on `POST /api/mcp` served by that route, as on
 * Nest's route (`McpController`, reached with a query string).
 */
describe('MCP endpoint: its own route runs every global guard, interceptor, pipe and filter', () => {
  let t: TestApp;
  let token: string;
  let served: jest.SpyInstance;

  beforeAll(async () => {
    t = await startTestApp(
      {},
      {
        providers: [
          { provide: APP_GUARD, useClass: ProbeGuard },
          { provide: APP_INTERCEPTOR, useClass: ProbeInterceptor },
          { provide: APP_PIPE, useClass: ProbePipe },
          { provide: APP_FILTER, useClass: ProbeFilter },
        ],
      },
    );
    const organization = await createOrganization(t.dataSource);
    const project = await createProject(t.dataSource, organization.id);
    token = (await createAgentToken(t.dataSource, project)).token;
    served = jest.spyOn(t.app.get(McpEndpoint), 'serve');
  });
  afterAll(async () => t?.close());

  const post = (path: string, probe: string, extra: Record<string, string> = {}) =>
    fetch(`${t.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'tools/list',
        'x-probe': probe,
        ...extra,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...META, probe } } }),
    });

  it.each([
    ['the own route', '/api/mcp', 'own'],
    ["Nest's route", '/api/mcp?via=router', 'nest'],
  ])('%s runs the global guard, the interceptor around the pipe and the endpoint', async (_name, path, route) => {
    const probe = `ran-${route}`;
    served.mockClear();
    const res = await post(path, probe);
    expect(res.status).toBe(200);
    expect((await res.json()) as object).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
    expect(served).toHaveBeenCalledTimes(route === 'own' ? 1 : 0);
    expect(ran.get(probe)).toEqual([`guard:${route}`, 'interceptor:before', 'pipe', 'interceptor:after']);
  });

  it.each([
    ['the own route', '/api/mcp', 'own'],
    ["Nest's route", '/api/mcp?via=router', 'nest'],
  ])('%s answers what the global guard throws with the global filter that catches it', async (_name, path, route) => {
    const probe = `filter-${route}`;
    const res = await post(path, probe, { 'x-probe-refuse': 'guard' });
    expect(res.status).toBe(418);
    expect(await res.json()).toEqual({ refused: 'refused by the probe guard' });
    expect(ran.get(probe)).toEqual([`guard:${route}`, 'filter']);
  });

  it.each([
    ['the own route', '/api/mcp', 'own'],
    ["Nest's route", '/api/mcp?via=router', 'nest'],
  ])('%s answers 403 when the global guard denies', async (_name, path, route) => {
    const res = await post(path, `deny-${route}`, { 'x-probe-refuse': 'deny' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ statusCode: 403, message: 'Forbidden resource', error: 'Forbidden' });
  });
});
