import { html, HtmlPage, page } from '@app/web';

/** The page shown when the flow cannot go back to the client safely. */
export function errorPage(title: string, detail: string): HtmlPage {
  return page(
    title,
    html`<div class="card" role="alert" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p>${detail}</p>
<p class="muted">Nothing was shared with the application. Close this window and start again from the application.</p>
</div>`,
  );
}
