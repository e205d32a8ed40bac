import { Controller, type Type } from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ApiExcludeController } from '@nestjs/swagger';
import { AssetsController } from './assets.controller';
import { DashboardContextGuard } from './dashboard-context';
import { DASHBOARD_CONTROLLER, DashboardController } from './dashboard-controller.decorator';
import { DashboardModule } from './dashboard.module';
import { DashboardPageFilter } from './dashboard-page.filter';

/** The one controller of the module that serves no page: the public script file (no session, no form). */
const NOT_PAGES: readonly Type[] = [AssetsController];

/** What `@ApiExcludeController()` notes on a class (its key is the swagger package's own). */
@ApiExcludeController()
class Excluded {}
const EXCLUDED = Reflect.getOwnMetadataKeys(Excluded).map((key) => [key, Reflect.getOwnMetadata(key, Excluded)] as const);

const controllers = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, DashboardModule) as Type[]).filter((c) => !NOT_PAGES.includes(c));

describe('dashboard page controllers', () => {
  it('are found in the module (every controller but the script file)', () => {
    expect(controllers.length).toBeGreaterThan(0);
  });

  it.each(controllers.map((c) => [c.name, c] as const))('%s carries @DashboardController: the CSRF guard, the pages filter, no OpenAPI', (_, controller) => {
    expect(Reflect.getMetadata(DASHBOARD_CONTROLLER, controller)).toBe(true);
    expect(Reflect.getMetadata(GUARDS_METADATA, controller)).toContain(DashboardContextGuard);
    expect(Reflect.getMetadata(EXCEPTION_FILTERS_METADATA, controller)).toContain(DashboardPageFilter);
    expect(EXCLUDED.length).toBeGreaterThan(0);
    for (const [key, value] of EXCLUDED) expect(Reflect.getMetadata(key, controller)).toEqual(value);
  });

  it('the decorator mounts the controller at its path, or at the root', () => {
    @DashboardController('orgs/:orgId/things')
    class ThingsPageController {}
    @DashboardController()
    class RootPageController {}
    @Controller()
    class PlainController {}
    expect(Reflect.getMetadata(PATH_METADATA, ThingsPageController)).toBe('orgs/:orgId/things');
    expect(Reflect.getMetadata(PATH_METADATA, RootPageController)).toBe(Reflect.getMetadata(PATH_METADATA, PlainController));
    expect(Reflect.getMetadata(GUARDS_METADATA, RootPageController)).toEqual([DashboardContextGuard]);
  });
});
