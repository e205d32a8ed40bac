import { applyDecorators, Controller, SetMetadata, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DashboardContextGuard } from './dashboard-context';
import { DashboardPageFilter } from './dashboard-page.filter';

/** Metadata that marks a class as a dashboard page controller (`DashboardController`). */
export const DASHBOARD_CONTROLLER = 'dashboard:controller';

/**
 * A controller of dashboard pages, with the conventions every one of them shares: its routes
 * are left out of the OpenAPI document, the dashboard's guard runs after the global one (it
 * loads who the person is and refuses a form post without this session's CSRF token), and the
 * pages' filter answers its errors as pages. Every page controller takes this one decorator
 * instead of those by hand, so none can forget the CSRF check (`dashboard-controller.spec.ts`
 * walks the module's controllers). Access stays declared per route (`@PageAuth`) and, under
 * `/orgs/:orgId`, per controller (`@OrganizationRoute`).
 */
export function DashboardController(path?: string): ClassDecorator {
  return applyDecorators(
    SetMetadata(DASHBOARD_CONTROLLER, true),
    ApiExcludeController(),
    UseGuards(DashboardContextGuard),
    UseFilters(DashboardPageFilter),
    path === undefined ? Controller() : Controller(path),
  );
}
