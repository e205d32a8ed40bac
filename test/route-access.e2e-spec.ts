import { describeAccess, mountedRoutes } from './helpers/routes';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * Every mounted route and the access it declares. A change of access shows up in review as a
 * change of this snapshot (update it with `npx jest test/route-access.e2e-spec.ts -u`).
 */
describe('route access declarations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('matches the reviewed snapshot', () => {
    expect(mountedRoutes(t.app).map(describeAccess)).toMatchSnapshot();
  });

  it('leaves no Nest route without a declaration', () => {
    const undeclared = mountedRoutes(t.app).filter((r) => r.handler !== 'express' && !r.access);
    expect(undeclared.map((r) => `${r.method} ${r.path} (${r.handler})`)).toEqual([]);
  });

  it('keeps every REST route under /api, and every agent route at /api/mcp', () => {
    for (const route of mountedRoutes(t.app)) {
      if (route.access?.type === 'rest') expect(route.path).toMatch(/^\/api\//);
      if (route.access?.type === 'agent') expect(route.path).toMatch(/^\/api\/mcp/);
    }
  });
});
