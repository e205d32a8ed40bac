import type { ProjectTokenDto, ServiceKeyCreatorDto } from '@app/service-keys';
import { html, SafeHtml } from '@app/web';
import { when } from '../views/when';

export function creatorName(creator: ServiceKeyCreatorDto | null): SafeHtml {
  if (!creator) return html`<span class="muted">Unknown</span>`;
  return creator.type === 'user' ? html`${creator.name}` : html`API key “${creator.name}”`;
}

/** The tokens that still work: active, or rotating out until their overlap ends. */
export function liveTokens(tokens: readonly ProjectTokenDto[]): ProjectTokenDto[] {
  return tokens.filter((t) => t.status === 'active' || t.status === 'rotating_out');
}

/** A token's state in words: active (until its chosen expiry), rotating out until…, expired or revoked when. */
export function tokenState(token: ProjectTokenDto): SafeHtml {
  if (token.status === 'active') return token.expiresAt ? html`Active until ${when(token.expiresAt)}` : html`Active`;
  if (token.status === 'expired') return html`Expired ${when(token.expiresAt)}`;
  if (token.status === 'rotating_out') return html`Rotating out until ${when(token.rotatingOutUntil)}`;
  return html`Revoked ${when(token.revokedAt)}`;
}
