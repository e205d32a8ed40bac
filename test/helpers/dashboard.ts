import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createSessionUser } from '../factories/machine';
import { createOrganization } from '../factories';
import { startTestApp, TestApp } from './test-app';

/** The CSRF token of a dashboard page (every form carries it). */
export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no csrf field in the page');
  return match[1]!;
}

/**
 * A signed-in browser for server-side dashboard tests: sends the session cookie (never
 * `Authorization`), and posts forms with the CSRF token of the page it last loaded, as a browser
 * would (same-origin `Sec-Fetch-Site`).
 */
export class DashboardClient {
  private csrf: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly session: string,
  ) {}

  async get(path: string): Promise<request.Response> {
    const res = await request(this.baseUrl).get(path).set('Cookie', `ag_session=${this.session}`).redirects(0);
    if (res.status === 200 && typeof res.text === 'string' && res.text.includes('name="csrf"')) this.csrf = csrfOf(res.text);
    return res;
  }

  /** Posts a form; `csrf` defaults to the token of the last page loaded (pass `null` to send none). */
  async post(path: string, fields: Record<string, string | string[]> = {}, csrf: string | null = this.csrf ?? null): Promise<request.Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const v of ([] as string[]).concat(value)) body.append(name, v);
    if (csrf !== null) body.append('csrf', csrf);
    return request(this.baseUrl)
      .post(path)
      .set('Cookie', `ag_session=${this.session}`)
      .set('Sec-Fetch-Site', 'same-origin')
      .type('form')
      .send(body.toString())
      .redirects(0);
  }

  /** Loads `page` (for its CSRF token), then posts `fields` to `action`. */
  async submit(page: string, action: string, fields: Record<string, string | string[]> = {}): Promise<request.Response> {
    const loaded = await this.get(page);
    if (loaded.status !== 200) throw new Error(`GET ${page} answered ${loaded.status}`);
    return this.post(action, fields);
  }
}

/** An organisation with an admin and a member, each with a dashboard client. */
export async function dashboardOrganization(app: INestApplication, ds: DataSource, baseUrl: string) {
  const organization = await createOrganization(ds);
  const admin = await createSessionUser(app, ds, organization.id, 'admin');
  const member = await createSessionUser(app, ds, organization.id, 'member');
  return {
    organization,
    admin: { ...admin, page: new DashboardClient(baseUrl, admin.session) },
    member: { ...member, page: new DashboardClient(baseUrl, member.session) },
  };
}

export type DashboardOrganization = Awaited<ReturnType<typeof dashboardOrganization>>;

/**
 * The test app (`env` as for `startTestApp`) with two organisations: `org`, the one a spec works
 * in, and `other`, whose ids `org`'s people must not reach. When setting up fails, the app is closed.
 */
export async function dashboardApp(env: Record<string, string> = {}): Promise<{ t: TestApp; org: DashboardOrganization; other: DashboardOrganization }> {
  const t = await startTestApp(env);
  try {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const other = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    return { t, org, other };
  } catch (error) {
    await t.close();
    throw error;
  }
}
