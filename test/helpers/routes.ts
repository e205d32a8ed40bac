import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ACCESS_METADATA, ORGANIZATION_ROUTE_METADATA, RouteAccess } from '@app/credentials';

export interface MountedRoute {
  method: string;
  path: string;
  /** The access the route declares; `undefined` for a Nest route that declares none (closed). */
  access: RouteAccess | undefined;
  /** The path parameter the route declares as its organisation (`@OrganizationRoute`). */
  organizationParam?: string;
  /** The controller class and method, or `express` for a route mounted outside Nest (Swagger UI). */
  handler: string;
}

function joinPath(...parts: string[]): string {
  const joined = parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}

function asList(value: unknown): string[] {
  if (value === undefined) return [''];
  return Array.isArray(value) ? (value as string[]) : [value as string];
}

/** Every route Nest mounted from a controller, with the access it declares (handler over class). */
function nestRoutes(app: NestExpressApplication): MountedRoute[] {
  const reflector = new Reflector();
  const out: MountedRoute[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller) continue;
      const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const fn = proto[name];
        if (name === 'constructor' || typeof fn !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined;
        if (method === undefined) continue;
        const access = reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_METADATA, [fn as () => void, controller]);
        const organizationParam = reflector.getAllAndOverride<string | undefined>(ORGANIZATION_ROUTE_METADATA, [fn as () => void, controller]);
        for (const prefix of prefixes) {
          for (const path of asList(Reflect.getMetadata(PATH_METADATA, fn))) {
            out.push({ method: RequestMethod[method], path: joinPath(prefix, path), access, organizationParam, handler: `${controller.name}.${name}` });
          }
        }
      }
    }
  }
  return out;
}

interface ExpressLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/** Every route the Express router serves (method + path), Nest's and any mounted directly. */
function expressRoutes(app: NestExpressApplication): { method: string; path: string }[] {
  const instance = app.getHttpAdapter().getInstance() as { router?: { stack: ExpressLayer[] }; _router?: { stack: ExpressLayer[] } };
  const stack = (instance.router ?? instance._router)?.stack ?? [];
  const out: { method: string; path: string }[] = [];
  for (const layer of stack) {
    if (!layer.route) continue;
    for (const path of ([] as string[]).concat(layer.route.path)) {
      for (const method of Object.keys(layer.route.methods)) {
        out.push({ method: method === '_all' ? 'ALL' : method.toUpperCase(), path });
      }
    }
  }
  return out;
}

/**
 * Every mounted route with its declared access: the Express router is the ground truth for what
 * is mounted; Nest's metadata says what each route declares. A Nest `@All()` route (which Express
 * holds once per HTTP method) is listed once, as ALL.
 */
export function mountedRoutes(app: NestExpressApplication): MountedRoute[] {
  const nest = nestRoutes(app);
  const out = new Map<string, MountedRoute>();
  for (const { method, path } of expressRoutes(app)) {
    const match = nest.find((r) => r.path === path && (r.method === method || r.method === 'ALL'));
    const route = match ?? { method, path, access: undefined, handler: 'express' };
    out.set(`${route.method} ${route.path} ${route.handler}`, route);
  }
  return [...out.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

/** One line per route, as it appears in the snapshot: the effective rule for each credential kind. */
export function describeAccess(route: MountedRoute): string {
  const { access } = route;
  let text: string;
  if (route.handler === 'express') text = 'mounted outside Nest (no guard): public';
  else if (!access) text = 'NONE DECLARED (closed)';
  else if (access.type === 'page') {
    const org = route.organizationParam;
    text = `page: session cookie${org ? ` with role >= ${access.minRole ?? 'admin'} in :${org}` : ''}`;
  } else if (access.type === 'scim') text = "scim: an organisation's scim_ token (that organisation only)";
  else if (access.type !== 'rest') text = access.type;
  else {
    const org = route.organizationParam;
    const session = org ? `session with role >= ${access.minRole ?? 'admin'} in :${org}` : 'any session';
    const key = access.sessionOnly
      ? 'rk_ refused'
      : access.permission
        ? `rk_ ${org ? `of :${org} ` : ''}with ${access.permission}`
        : org
          ? 'rk_ refused'
          : 'any rk_';
    text = `rest: ${session}; ${key}`;
  }
  return `${route.method.padEnd(6)} ${route.path} → ${text}`;
}
