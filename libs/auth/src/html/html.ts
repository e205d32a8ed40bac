import { randomBytes } from 'node:crypto';
import type { Response } from 'express';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Tagged template that escapes every interpolated string unless it is already `SafeHtml`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1b1f24; }
  main { max-width: 28rem; margin: 3rem auto; padding: 2rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.5rem; margin-top: 0; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { display: block; width: 100%; box-sizing: border-box; padding: .5rem; margin-top: .25rem; font: inherit; border: 1px solid #6b7280; border-radius: 4px; }
  input:focus { outline: 3px solid #2563eb; outline-offset: 1px; }
  input[aria-invalid="true"] { border-color: #b91c1c; }
  .hint { color: #4b5563; font-size: .875rem; margin: .25rem 0 0; }
  .field-error { color: #b91c1c; font-size: .875rem; margin: .25rem 0 0; }
  .summary { border: 2px solid #b91c1c; border-radius: 4px; padding: .75rem 1rem; margin-bottom: 1rem; }
  .summary h2 { font-size: 1rem; margin: 0 0 .5rem; }
  .summary a { color: #b91c1c; }
  button { margin-top: 1.5rem; padding: .6rem 1.2rem; font: inherit; font-weight: 600; color: #fff; background: #1d4ed8; border: 0; border-radius: 4px; cursor: pointer; }
  button:focus { outline: 3px solid #1b1f24; outline-offset: 2px; }
  code { background: #f1f3f5; padding: 0 .25rem; border-radius: 3px; }
`;

/**
 * Sends a server-rendered page with the headers every HTML page of the service carries: no
 * framing (X-Frame-Options and CSP frame-ancestors), no caching, no inline script (the CSP
 * allows only this page's nonce'd stylesheet), forms post only to this origin.
 */
export function sendPage(res: Response, status: number, title: string, body: SafeHtml): void {
  const nonce = randomBytes(16).toString('base64');
  res
    .status(status)
    .setHeader('Content-Type', 'text/html; charset=utf-8')
    .setHeader('Cache-Control', 'no-store')
    .setHeader('X-Frame-Options', 'DENY')
    .setHeader(
      'Content-Security-Policy',
      `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .setHeader('X-Content-Type-Options', 'nosniff')
    .setHeader('Referrer-Policy', 'no-referrer')
    .send(
      `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Agent Gateway</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body.value}
</main>
</body>
</html>
`,
    );
}
