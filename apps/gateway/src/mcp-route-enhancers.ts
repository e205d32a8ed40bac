import {
  type ArgumentMetadata,
  type CanActivate,
  type ExceptionFilter,
  ForbiddenException,
  type NestInterceptor,
  type PipeTransform,
  type Type,
  ValidationPipe,
} from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, FILTER_CATCH_EXCEPTIONS, GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA } from '@nestjs/common/constants';
import { ApplicationConfig } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { Request, Response } from 'express';
import { defer, isObservable, lastValueFrom, mergeAll, type Observable } from 'rxjs';
import { CredentialGuard } from '@app/credentials';
import { JsonRpcErrorFilter, McpController, type McpEndpoint } from '@app/mcp';
import { AppExceptionFilter } from './app-exception.filter';

/**
 * An enhancer that can say, once at start, that it does nothing on a given route handler (its
 * `appliesTo` answers false): the endpoint's own route then leaves it out without running it.
 */
export interface RouteAwareEnhancer {
  appliesTo(controller: Type, handler: (...args: never[]) => unknown): boolean;
}

/** How Nest hands the body to `McpController.post` (`@Body() body: unknown`): the metadata its pipes see. */
export const MCP_BODY_METADATA: ArgumentMetadata = { type: 'body', metatype: Object, data: undefined };

const HANDLER = McpController.prototype.post;

/**
 * What the endpoint's own route (`mcp-route.ts`) runs of Nest's enhancers, so that it never
 * silently skips one that Nest's route (`McpController.post`) would run. Built from the
 * application's global guards, interceptors, pipes and filters (`ApplicationConfig`: `APP_*`
 * providers and `app.useGlobal*`), in Nest's order:
 *
 * - the global `CredentialGuard` and `AppExceptionFilter`, and the controller's
 *   `JsonRpcErrorFilter`, the route runs itself (the agent check before the body, the
 *   endpoint's refusals, `AppExceptionFilter.answer`), with no per-request cost;
 * - an enhancer that says it does nothing on `McpController.post` (`RouteAwareEnhancer`), and a
 *   `ValidationPipe` (which leaves a parameter typed `Object`, the body here, untouched), is left out;
 * - every other one is run as Nest runs it: guards (false → 403), then the interceptors around
 *   the pipes on the body and the endpoint, and filters (matched by `@Catch`, the last
 *   registered first) for what is thrown.
 *
 * Request-scoped global enhancers, and enhancers declared on `McpController` itself (other than its
 * `JsonRpcErrorFilter`), cannot be run this way: the application refuses to start, naming them.
 */
export class McpRouteEnhancers {
  private guards: readonly CanActivate[] = [];
  private interceptors: readonly NestInterceptor[] = [];
  private pipes: readonly PipeTransform[] = [];
  private filters: readonly ExceptionFilter[] = [];
  /** The arrays the plan was made from: `app.useGlobal*` replaces them, `APP_*` providers add to them. */
  private seen: readonly unknown[] = [];
  private seenLengths: readonly number[] = [];

  constructor(
    private readonly config: ApplicationConfig,
    private readonly credentialGuard: CredentialGuard,
    private readonly errors: AppExceptionFilter,
    private readonly endpoint: McpEndpoint,
  ) {
    refuseUnsupported(config);
    this.plan();
  }

  /** True when there is nothing but what the route does itself (the usual case: no per-request cost). */
  get none(): boolean {
    this.refresh();
    return this.guards.length === 0 && this.interceptors.length === 0 && this.pipes.length === 0 && this.filters.length === 0;
  }

  /** Runs the guards, then `serve` inside the interceptors, after the pipes on the body. */
  async run(req: Request, res: Response, serve: () => Promise<void>): Promise<void> {
    const context = httpContext(req, res);
    for (const guard of this.guards) {
      const allowed = await resolve(guard.canActivate(context));
      if (!allowed) throw new ForbiddenException('Forbidden resource');
    }
    const handler = async () => {
      for (const pipe of this.pipes) req.body = await pipe.transform(req.body, MCP_BODY_METADATA);
      await serve();
    };
    const chain = (i: number): Observable<unknown> =>
      i >= this.interceptors.length
        ? defer(handler)
        : defer(async () => this.interceptors[i]!.intercept(context, { handle: () => chain(i + 1) })).pipe(mergeAll());
    await lastValueFrom(chain(0), { defaultValue: undefined });
  }

  /** Answers what the route threw, as Nest's filters for `McpController.post` would. */
  answer(error: unknown, req: Request, res: Response): void {
    this.refresh();
    if (this.endpoint.refuse(error, req, res)) return;
    for (const filter of this.filters) {
      if (!catches(filter, error)) continue;
      filter.catch(error, httpContext(req, res));
      return;
    }
    this.errors.answer(error, req, res);
  }

  private refresh(): void {
    const now = [this.config.getGlobalGuards(), this.config.getGlobalInterceptors(), this.config.getGlobalPipes(), this.config.getGlobalFilters()];
    for (let i = 0; i < now.length; i++) {
      if (now[i] !== this.seen[i] || now[i]!.length !== this.seenLengths[i]) {
        this.plan();
        return;
      }
    }
  }

  private plan(): void {
    const config = this.config;
    const guards = config.getGlobalGuards();
    const interceptors = config.getGlobalInterceptors();
    const pipes = config.getGlobalPipes();
    const filters = config.getGlobalFilters();
    this.seen = [guards, interceptors, pipes, filters];
    this.seenLengths = this.seen.map((list) => (list as unknown[]).length);
    this.guards = guards.filter((guard) => guard !== this.credentialGuard && applies(guard));
    this.interceptors = interceptors.filter(applies);
    this.pipes = pipes.filter((pipe) => !(pipe instanceof ValidationPipe) && applies(pipe));
    // Nest tries the last registered global filter first; `AppExceptionFilter` catches everything, so those before it never run.
    const reversed = [...filters].reverse();
    const last = reversed.findIndex((filter) => filter instanceof AppExceptionFilter);
    this.filters = (last === -1 ? reversed : reversed.slice(0, last)).filter(applies);
  }
}

function applies(enhancer: object): boolean {
  const aware = enhancer as Partial<RouteAwareEnhancer>;
  return typeof aware.appliesTo !== 'function' || aware.appliesTo(McpController, HANDLER);
}

function catches(filter: ExceptionFilter, error: unknown): boolean {
  const types = (Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, filter.constructor) ?? []) as Type[];
  return types.length === 0 || types.some((type) => error instanceof type);
}

function httpContext(req: Request, res: Response): ExecutionContextHost {
  const context = new ExecutionContextHost([req, res, undefined], McpController, HANDLER);
  context.setType('http');
  return context;
}

async function resolve(value: boolean | Promise<boolean> | Observable<boolean>): Promise<boolean> {
  return isObservable(value) ? lastValueFrom(value) : value;
}

/** What the own route cannot run: the application does not start with it. */
function refuseUnsupported(config: ApplicationConfig): void {
  const unsupported: string[] = [];
  const scoped = [
    ['guard', config.getGlobalRequestGuards()],
    ['interceptor', config.getGlobalRequestInterceptors()],
    ['pipe', config.getGlobalRequestPipes()],
    ['filter', config.getGlobalRequestFilters()],
  ] as const;
  for (const [kind, wrappers] of scoped) {
    for (const wrapper of wrappers) unsupported.push(`the request-scoped global ${kind} ${String((wrapper as { name?: unknown }).name ?? 'unnamed')}`);
  }
  for (const [key, kind] of [
    [GUARDS_METADATA, 'guard'],
    [INTERCEPTORS_METADATA, 'interceptor'],
    [PIPES_METADATA, 'pipe'],
    [EXCEPTION_FILTERS_METADATA, 'filter'],
  ] as const) {
    const declared = [...((Reflect.getMetadata(key, McpController) ?? []) as unknown[]), ...((Reflect.getMetadata(key, HANDLER) ?? []) as unknown[])];
    for (const enhancer of declared) {
      if (enhancer === JsonRpcErrorFilter) continue;
      unsupported.push(`the ${kind} ${nameOf(enhancer)} declared on McpController`);
    }
  }
  if (unsupported.length > 0) {
    throw new Error(`The MCP endpoint's own route (POST /api/mcp) cannot run ${unsupported.join(', ')}: run it from the route itself (apps/gateway/src/mcp-route-enhancers.ts) or register it otherwise`);
  }
}

function nameOf(enhancer: unknown): string {
  return typeof enhancer === 'function' ? enhancer.name : ((enhancer as object | null)?.constructor?.name ?? String(enhancer));
}

