import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { html, raw, SafeHtml } from './html';

/**
 * The one stylesheet of every server-rendered page (sign-in, sign-up, consent, errors), readable
 * on a phone: system fonts, generous touch targets, visible focus, sufficient contrast, dark
 * mode. Served inline and allowed by its hash, so the Content-Security-Policy needs no
 * 'unsafe-inline' and no per-response nonce.
 */
const STYLES = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--accent:#0a58ca;--accent-fg:#fff;--danger:#b42318;--focus:#ffbf47}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--accent:#4493f8;--accent-fg:#0d1117;--danger:#ff7b72}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:break-word}
main{max-width:36rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.25rem}
h1{font-size:1.4rem;line-height:1.3;margin:0 0 .75rem}
h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.95rem}
.error{border:2px solid var(--danger);border-radius:8px;padding:.75rem;margin:0 0 1rem;color:var(--danger);font-weight:600}
.warning{border:2px solid var(--danger);border-radius:8px;padding:.75rem;margin:0 0 1rem}
.summary{border:2px solid var(--danger);border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}
.summary h2{margin:0 0 .5rem;color:var(--danger)}
.summary a{color:var(--danger);font-weight:600}
fieldset{border:0;margin:0 0 1rem;padding:0;min-width:0}
legend{font-weight:600;padding:0;margin:0 0 .5rem}
fieldset fieldset legend{font-weight:500;color:var(--muted);font-size:.95rem;margin-top:.5rem}
.choice{display:flex;gap:.75rem;align-items:flex-start;padding:.65rem .75rem;border:1px solid var(--line);border-radius:8px;margin:0 0 .5rem;cursor:pointer}
.choice input{width:1.25rem;height:1.25rem;margin:.15rem 0 0;flex:none}
.choice span{display:block}
.choice .desc{color:var(--muted);font-size:.9rem}
code{font-size:.9em;word-break:break-all}
label[for]{display:block;font-weight:600;margin:.75rem 0 .25rem}
.hint{color:var(--muted);font-size:.9rem;margin:0 0 .25rem}
.field-error{color:var(--danger);font-size:.9rem;font-weight:600;margin:0 0 .25rem}
input[type=email],input[type=password],input[type=text]{width:100%;font:inherit;padding:.65rem .75rem;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--fg)}
input[type=search]{font:inherit;width:28rem;max-width:100%;padding:.55rem .75rem;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--fg)}
input[aria-invalid=true]{border:2px solid var(--danger)}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}
button{font:inherit;font-weight:600;min-height:2.75rem;padding:.6rem 1.25rem;border-radius:8px;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer;flex:1 1 8rem}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
body.wide main{max-width:72rem}
.topbar{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.5rem 1rem;border-bottom:1px solid var(--line);background:var(--card)}
.brand{font-weight:700;color:var(--fg);text-decoration:none}
.topbar details{position:relative}
.topbar summary{cursor:pointer;padding:.4rem .6rem;border:1px solid var(--line);border-radius:8px;list-style-position:inside}
.topbar details ul{position:absolute;z-index:2;margin:.25rem 0 0;padding:.25rem 0;list-style:none;background:var(--card);border:1px solid var(--line);border-radius:8px;min-width:14rem}
.topbar details li a,.topbar details li span{display:block;padding:.5rem .75rem}
.topbar form{display:inline}
.topbar button{min-height:2.25rem;padding:.35rem .8rem;flex:none}
.sections{display:flex;flex-wrap:wrap;gap:.25rem;padding:.5rem 1rem;border-bottom:1px solid var(--line);background:var(--card)}
.sections a{padding:.45rem .75rem;border-radius:8px;text-decoration:none;color:var(--fg)}
.sections a[aria-current=page]{background:var(--accent);color:var(--accent-fg);font-weight:600}
.notice{border:2px solid var(--accent);border-radius:8px;padding:.75rem;margin:0 0 1rem}
.table-wrap{overflow-x:auto;position:relative;max-width:100%}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem;font-size:.95rem}
th,td{text-align:left;padding:.5rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted)}
td form{display:inline}
td button,.inline button{min-height:2.25rem;padding:.35rem .8rem;flex:none}
button.danger{border-color:var(--danger);color:var(--danger)}
button.danger.primary{background:var(--danger);color:var(--accent-fg)}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.secret input{flex:1 1 20rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.secret button{flex:none}
textarea[readonly]{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
.actions button[data-copy]{flex:none}
pre{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:.75rem;overflow-x:auto;font-size:.85rem}
textarea,select{width:100%;font:inherit;padding:.6rem .75rem;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--fg)}
input[type=number],input[type=date],input[type=datetime-local]{font:inherit;padding:.6rem .75rem;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--fg)}
.pager{display:flex;gap:1rem;margin:.5rem 0 1rem}
.empty{border:1px dashed var(--line);border-radius:12px;padding:1.25rem;margin:.5rem 0 1rem}
.card+.card{margin-top:1rem}
.card>:first-child{margin-top:0}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap}
`.trim();

const STYLE_HASH = `sha256-${createHash('sha256').update(STYLES).digest('base64')}`;

/**
 * Headers of every HTML page and of every redirect between pages: no framing (X-Frame-Options
 * and CSP `frame-ancestors`, against clickjacking the consent page), no caching, nothing loaded
 * from elsewhere, no script at all (`default-src 'none'` and no `script-src`), no referrer.
 *
 * Deliberately no `form-action`: browsers apply it to the redirect that follows a form post, and
 * the consent form's answer is a redirect to the client's own URI (another origin, or a private
 * scheme such as `cursor://`), which `form-action 'self'` would block.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': `default-src 'none'; style-src '${STYLE_HASH}'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The path of the one script file the dashboard pages may load (the copy buttons). */
export const DASHBOARD_SCRIPT_PATH = '/assets/dashboard.js';

/** The service's icon (SVG), linked from every page; `/favicon.ico` answers the same for browsers that ask it anyway. */
export const FAVICON_PATH = '/favicon.svg';

/**
 * The dashboard pages' headers: those of every page, except that the one script file served by
 * this service may run (`script-src 'self'`: no inline script, no `unsafe-inline`) and forms
 * post only here (`form-action 'self'`; the dashboard never redirects a form elsewhere).
 */
export const DASHBOARD_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_HEADERS,
  'Content-Security-Policy': `default-src 'none'; script-src 'self'; connect-src 'none'; style-src '${STYLE_HASH}'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
};

/** A whole HTML document built by `page()`: the only thing `sendPage` sends. */
export class HtmlPage {
  constructor(
    readonly html: string,
    /** Whether the page loads the dashboard's script file (and so gets its headers). */
    readonly withScript = false,
  ) {}
}

export interface PageOptions {
  /** Markup before `<main>` (the dashboard's bar and navigation). */
  header?: SafeHtml;
  /** Loads the dashboard's one script file (copy buttons). Pages before sign-in never do. */
  script?: boolean;
  /** A wider column, for tables. */
  wide?: boolean;
}

/** Wraps a page's content in the shared shell: language, viewport, title, the stylesheet. */
export function page(title: string, body: SafeHtml, options: PageOptions = {}): HtmlPage {
  return new HtmlPage(
    html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · Agent Gateway</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<style>${raw(STYLES)}</style>
${options.script ? html`<script src="${DASHBOARD_SCRIPT_PATH}" defer></script>` : ''}
</head>
<body${options.wide ? html` class="wide"` : ''}>
${options.header ?? ''}
<main>
${body}
</main>
</body>
</html>
`.value,
    options.script === true,
  );
}

export function sendPage(res: Response, status: number, document: HtmlPage): void {
  res.status(status);
  const headers = document.withScript ? DASHBOARD_PAGE_HEADERS : PAGE_HEADERS;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.send(document.html);
}

/** A redirect from one HTML step to the next, with the same no-store and no-framing headers. */
export function sendRedirect(res: Response, status: 302 | 303, location: string): void {
  res.status(status);
  for (const [name, value] of Object.entries(PAGE_HEADERS)) {
    if (name !== 'Content-Type') res.setHeader(name, value);
  }
  res.setHeader('Location', location);
  res.end();
}
