import { html, SafeHtml } from '@app/web';

/** A form field's error, above the field, with the id its `aria-describedby` names (`<id>-error`). */
export function fieldError(id: string, error: string | undefined): SafeHtml | '' {
  return error ? html`<p class="field-error" id="${id}-error">${error}</p>` : '';
}

/** ` aria-invalid="true"` on a field that has an error. */
export function invalid(error: string | undefined): SafeHtml | '' {
  return error ? html` aria-invalid="true"` : '';
}
