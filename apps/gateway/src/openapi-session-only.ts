import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ACCESS_METADATA, ORGANIZATION_ROUTE_METADATA, type RouteAccess } from '@app/credentials';

/** The OpenAPI extension marking an operation an `rk_` key is refused on: it needs a person's session. */
export const SESSION_ONLY_EXTENSION = 'x-session-only';

/** A person's session, wherever it came from: an admin who signs in only through the IdP has one too. */
const SESSION_ONLY_SENTENCE =
  "Needs a person's session (the session JWT of a password sign-in or of single sign-on; in the browser, the dashboard does it): an rk_ API key gets 403.";

const list = (value: unknown): string[] => (value === undefined ? [''] : Array.isArray(value) ? (value as string[]) : [value as string]);
const openApiPath = (...parts: string[]) =>
  `/${parts.map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Marks, in the OpenAPI document, every REST operation an `rk_` key cannot call, as the guard
 * decides it (`OrganizationAccessPolicy`): `sessionOnly` routes, and routes under an organisation
 * that name no API-key permission. Each gets `x-session-only: true` and a sentence in its description.
 */
export function markSessionOnlyOperations(app: INestApplication, document: OpenAPIObject): void {
  const reflector = new Reflector();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller) continue;
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        const method = typeof handler === 'function' ? (Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined) : undefined;
        if (name === 'constructor' || method === undefined) continue;
        const targets = [handler as () => void, controller];
        const access = reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_METADATA, targets);
        const organization = reflector.getAllAndOverride<string | undefined>(ORGANIZATION_ROUTE_METADATA, targets);
        if (access?.type !== 'rest' || !(access.sessionOnly || (organization && !access.permission))) continue;
        for (const prefix of list(Reflect.getMetadata(PATH_METADATA, controller))) {
          for (const path of list(Reflect.getMetadata(PATH_METADATA, handler as object))) {
            const operation = document.paths[openApiPath(prefix, path)]?.[RequestMethod[method].toLowerCase() as 'get'] as
              | (Record<string, unknown> & { description?: string })
              | undefined;
            if (!operation || operation[SESSION_ONLY_EXTENSION]) continue;
            operation[SESSION_ONLY_EXTENSION] = true;
            operation.description = operation.description ? `${operation.description}\n\n${SESSION_ONLY_SENTENCE}` : SESSION_ONLY_SENTENCE;
          }
        }
      }
    }
  }
}
