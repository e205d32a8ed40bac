import type { Request, Response } from 'express';
import { LINK_COOKIE, SsoCookies, STATE_COOKIE } from './sso-cookies';

const config = { baseUrl: 'https://gateway.example', sessionSecret: 'a'.repeat(48), issuer: 'https://gateway.example' };

/** Sets a cookie the way Express would, and reads back what a browser would send. */
function fakeResponse() {
  const set: Record<string, { value: string; options: Record<string, unknown> }> = {};
  const res = {
    cookie: (name: string, value: string, options: Record<string, unknown>) => {
      set[name] = { value, options };
    },
  } as unknown as Response;
  return { res, set };
}

const requestWith = (cookies: Record<string, string>) => ({ cookies }) as unknown as Request;

describe('SsoCookies', () => {
  const cookies = new SsoCookies(config);
  const state = { state: 's', nonce: 'n', codeVerifier: 'v'.repeat(43), organizationId: 'o', issuer: 'https://idp.example', next: '/' };

  it('round-trips an encrypted, HttpOnly, SameSite=Lax, Secure cookie scoped to its path, whose content is not readable', async () => {
    const { res, set } = fakeResponse();
    await cookies.set(res, STATE_COOKIE, state);
    const written = set[STATE_COOKIE.name]!;
    expect(written.options).toMatchObject({ httpOnly: true, sameSite: 'lax', secure: true, path: '/auth/sso/callback', maxAge: 600_000 });
    expect(written.value.split('.')).toHaveLength(5);
    expect(Buffer.from(written.value.split('.').join(''), 'base64url').toString('latin1')).not.toContain(state.codeVerifier);
    expect(await cookies.read(requestWith({ [STATE_COOKIE.name]: written.value }), STATE_COOKIE)).toEqual(state);
  });

  it('refuses a cookie made with another secret, for another purpose, changed, or missing', async () => {
    const { res, set } = fakeResponse();
    await new SsoCookies({ ...config, sessionSecret: 'b'.repeat(48) }).set(res, STATE_COOKIE, state);
    expect(await cookies.read(requestWith({ [STATE_COOKIE.name]: set[STATE_COOKIE.name]!.value }), STATE_COOKIE)).toBeNull();

    const own = fakeResponse();
    await cookies.set(own.res, STATE_COOKIE, state);
    const value = own.set[STATE_COOKIE.name]!.value;
    expect(await cookies.read(requestWith({ [LINK_COOKIE.name]: value }), LINK_COOKIE)).toBeNull();
    const parts = value.split('.');
    parts[3] = `${parts[3]!.slice(0, -2)}${parts[3]!.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(await cookies.read(requestWith({ [STATE_COOKIE.name]: parts.join('.') }), STATE_COOKIE)).toBeNull();
    expect(await cookies.read(requestWith({}), STATE_COOKIE)).toBeNull();
  });

  it('refuses an expired cookie', async () => {
    const { res, set } = fakeResponse();
    await cookies.set(res, STATE_COOKIE, state);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'], now: Date.now() + 11 * 60 * 1000 });
    try {
      expect(await cookies.read(requestWith({ [STATE_COOKIE.name]: set[STATE_COOKIE.name]!.value }), STATE_COOKIE)).toBeNull();
    } finally {
      jest.useRealTimers();
    }
  });
});
