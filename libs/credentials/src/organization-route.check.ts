import { Injectable, OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_METADATA, ORGANIZATION_ROUTE_METADATA, RouteAccess } from './access.decorators';

/** A path parameter name that looks like an organisation: org, orgId, organizationId, organisation_id, orgSlug… */
const ORGANIZATION_LIKE = /^org(ani[sz]ation)?([_-]?(id|slug|key|name))?$/i;

/**
 * The organisation check fails closed: at start, every controller route is checked, and the
 * application does not start when a route
 * - has a path parameter that looks like an organisation, or sits under `/organizations/:x`,
 *   without declaring `@OrganizationRoute(param)` for it (a REST route would otherwise admit any
 *   signed-in person; a public or agent route has no organisation check at all);
 * - declares `@OrganizationRoute(param)` with a `param` that is not one of its path parameters.
 */
@Injectable()
export class OrganizationRouteCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const problems: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller || !wrapper.instance) continue;
      const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
      const proto = Object.getPrototypeOf(wrapper.instance) as object;
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const handler = (proto as Record<string, () => unknown>)[name];
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_METADATA, [handler, controller]);
        const declared = this.reflector.getAllAndOverride<string | undefined>(ORGANIZATION_ROUTE_METADATA, [handler, controller]);
        for (const prefix of prefixes) {
          for (const path of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
            const route = `${RequestMethod[method]} /${[prefix, path].map(trimSlashes).filter(Boolean).join('/')} (${controller.name}.${name})`;
            problems.push(...routeProblems(route, `${prefix}/${path}`, access, declared));
          }
        }
      }
    }
    if (problems.length > 0) {
      throw new Error(`Routes under an organisation must declare which parameter names it:\n  ${problems.join('\n  ')}`);
    }
  }
}

/** What is wrong with one route's organisation declaration (nothing for most routes). */
export function routeProblems(route: string, path: string, access: RouteAccess | undefined, declared: string | undefined): string[] {
  const segments = path.split('/').filter(Boolean);
  const params = segments.flatMap((s) => paramName(s) ?? []);
  const organizationLike = new Set(params.filter((p) => ORGANIZATION_LIKE.test(p)));
  segments.forEach((segment, i) => {
    const next = segments[i + 1] && paramName(segments[i + 1]);
    if (/^organi[sz]ations$/i.test(segment) && next) organizationLike.add(next);
  });
  if (declared !== undefined) {
    if (!params.includes(declared)) return [`${route} declares @OrganizationRoute('${declared}'), which is not one of its path parameters`];
    if (access?.type !== 'rest' && access?.type !== 'page') {
      return [`${route} declares @OrganizationRoute but is not a @RestAuth or @PageAuth route`];
    }
    organizationLike.delete(declared);
  }
  return [...organizationLike].map((p) => `${route}: the parameter :${p} looks like an organisation; declare @OrganizationRoute('${p}')`);
}

function paramName(segment: string): string | undefined {
  return /^[:*]([A-Za-z_$][\w$]*)/.exec(segment)?.[1];
}

function asList(value: unknown): string[] {
  if (value === undefined) return [''];
  return Array.isArray(value) ? (value as string[]) : [value as string];
}

function trimSlashes(p: string): string {
  return p.replace(/^\/+|\/+$/g, '');
}
