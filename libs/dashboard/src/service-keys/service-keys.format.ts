import type { ProjectTokenDto, ServiceKeyCreatorDto } from '@app/service-keys';
import { html, SafeHtml } from '@app/web';

/** A moment as people read it (UTC, to the minute), machine-readable in `datetime`; `none` when there is none. */
export function when(date: Date | string | null | undefined, none = '—'): SafeHtml {
  if (!date) return html`${none}`;
  const iso = new Date(date).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

export function creatorName(creator: ServiceKeyCreatorDto | null): SafeHtml {
  if (!creator) return html`<span class="muted">Unknown</span>`;
  return creator.type === 'user' ? html`${creator.name}` : html`API key “${creator.name}”`;
}

/** The tokens that still work: active, or rotating out until their overlap ends. */
export function liveTokens(tokens: readonly ProjectTokenDto[]): ProjectTokenDto[] {
  return tokens.filter((t) => t.status !== 'revoked');
}

/** A token's state in words: active, rotating out until…, or revoked when. */
export function tokenState(token: ProjectTokenDto): SafeHtml {
  if (token.status === 'active') return html`Active`;
  if (token.status === 'rotating_out') return html`Rotating out until ${when(token.rotatingOutUntil)}`;
  return html`Revoked ${when(token.revokedAt)}`;
}
