import express from 'express';
import cookieParser from 'cookie-parser';
import request from 'supertest';
import { clearSessionCookie, readSessionCookie, sessionCookieName, setSessionCookie } from './session-cookie';
import type { AppConfig } from '@app/config';

function app(baseUrl: string) {
  const config = { baseUrl, sessionTtlSeconds: 3600 } as AppConfig;
  const a = express();
  a.use(cookieParser());
  a.get('/set', (_req, res) => {
    setSessionCookie(res, 'a.b.c', config);
    res.end();
  });
  a.get('/clear', (_req, res) => {
    clearSessionCookie(res, config);
    res.end();
  });
  a.get('/read', (req, res) => {
    res.json({ jwt: readSessionCookie(req, config) ?? null });
  });
  return a;
}

describe('the session cookie', () => {
  it('is __Host- prefixed, Secure, HttpOnly, SameSite=Lax, Path=/ and without Domain on https', async () => {
    expect(sessionCookieName({ baseUrl: 'https://gateway.example' })).toBe('__Host-ag_session');
    const res = await request(app('https://gateway.example')).get('/set');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]!;
    expect(cookie).toMatch(/^__Host-ag_session=a\.b\.c;/);
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toMatch(/Domain=/i);
    const cleared = ([] as string[]).concat((await request(app('https://gateway.example')).get('/clear')).headers['set-cookie'] ?? [])[0]!;
    expect(cleared).toMatch(/^__Host-ag_session=;/);
  });

  it('is plain ag_session, without Secure, on http (development)', async () => {
    const res = await request(app('http://localhost:3000')).get('/set');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]!;
    expect(cookie).toMatch(/^ag_session=a\.b\.c;/);
    expect(cookie).not.toContain('Secure');
  });

  it('is read only under the deployment’s own name: an unprefixed cookie does not count on https', async () => {
    const https = app('https://gateway.example');
    expect((await request(https).get('/read').set('Cookie', '__Host-ag_session=x.y.z')).body).toEqual({ jwt: 'x.y.z' });
    expect((await request(https).get('/read').set('Cookie', 'ag_session=x.y.z')).body).toEqual({ jwt: null });
  });
});
