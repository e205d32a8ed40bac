import { createHash } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { html } from './html';
import { DASHBOARD_PAGE_HEADERS, DASHBOARD_SCRIPT_PATH, page, PAGE_HEADERS, sendPage, sendRedirect } from './page';

function app() {
  const a = express();
  a.get('/page', (_req, res) => sendPage(res, 418, page('Tea & <cake>', html`<h1>${'<hello>'}</h1>`)));
  a.get('/dashboard', (_req, res) => sendPage(res, 200, page('Projects', html`<h1>Projects</h1>`, { script: true, wide: true })));
  a.get('/redirect', (_req, res) => sendRedirect(res, 303, '/next?a=1'));
  return a;
}

const CSP = /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; img-src 'self'; base-uri 'none'; frame-ancestors 'none'$/;

describe('the page shell', () => {
  it('sends the page with its status and every security header', async () => {
    const res = await request(app()).get('/page').expect(418);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toMatch(CSP);
  });

  it('has no form-action directive (it would block the redirect to the client after consent) and allows no script', () => {
    const csp = PAGE_HEADERS['Content-Security-Policy']!;
    expect(csp).not.toContain('form-action');
    expect(csp).not.toContain('script-src');
    expect(csp).not.toContain('unsafe-inline');
  });

  it('inlines exactly the stylesheet its CSP hash allows, and escapes the title', async () => {
    const res = await request(app()).get('/page');
    const style = /<style>([^<]*)<\/style>/.exec(res.text)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(res.headers['content-security-policy']).toContain(`'sha256-${hash}'`);
    expect(res.text).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.text).toContain('<title>Tea &amp; &lt;cake&gt; · Agent Gateway</title>');
    expect(res.text).toContain('<main>\n<h1>&lt;hello&gt;</h1>\n</main>');
  });

  it('redirects with the same headers, and no body type', async () => {
    const res = await request(app()).get('/redirect').expect(303);
    expect(res.headers.location).toBe('/next?a=1');
    for (const [name, value] of Object.entries(PAGE_HEADERS)) {
      if (name !== 'Content-Type') expect(res.headers[name.toLowerCase()]).toBe(value);
    }
    expect(res.headers['content-type']).toBeUndefined();
  });

  it('lets dashboard pages load the one script file of this service, and nothing inline', async () => {
    const res = await request(app()).get('/dashboard').expect(200);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toBe(DASHBOARD_PAGE_HEADERS['Content-Security-Policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain(`<script src="${DASHBOARD_SCRIPT_PATH}" defer></script>`);
    expect(res.text).not.toMatch(/<script>/);
    expect(res.text).toContain('<body class="wide">');
  });
});
