import { domainToASCII } from 'node:url';
import { IdentityProviderError } from './identity.errors';
import { PUBLIC_EMAIL_DOMAINS } from './public-email-domains';

/** What a verification TXT record holds: `agent-gateway-verification=<token>`. */
export const VERIFICATION_PREFIX = 'agent-gateway-verification=';

/** The name the TXT record is published at: `_agent-gateway.<domain>` (the domain itself is accepted too). */
export const VERIFICATION_LABEL = '_agent-gateway';

/** Where to publish a domain's verification record and what it says. */
export interface VerificationRecord {
  name: string;
  type: 'TXT';
  value: string;
}

export function verificationRecord(domain: string, token: string): VerificationRecord {
  return { name: `${VERIFICATION_LABEL}.${domain}`, type: 'TXT', value: `${VERIFICATION_PREFIX}${token}` };
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * An email domain as stored: lower case, without a trailing dot, internationalised names in
 * their ASCII (punycode) form; at least two labels, letters, digits and hyphens only. Throws
 * `invalid_email_domain` naming the field (`emailDomains[2]`) and the rule broken.
 */
export function normalizeEmailDomain(raw: unknown, field = 'domain'): string {
  if (typeof raw !== 'string') throw new IdentityProviderError('invalid_email_domain', `${field} must be a domain name (a string)`);
  const trimmed = raw.trim().replace(/\.$/, '');
  if (trimmed.includes('@')) {
    throw new IdentityProviderError('invalid_email_domain', `${field} must be a domain such as example.com, not an email address`);
  }
  const ascii = trimmed.length > 0 && trimmed.length <= 253 ? domainToASCII(trimmed.toLowerCase()) : '';
  const labels = ascii.split('.');
  if (!ascii || ascii.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !TOP_LEVEL.test(labels[labels.length - 1])) {
    throw new IdentityProviderError(
      'invalid_email_domain',
      `${field} is not a domain name: give the part after the @ of your people's email addresses, such as example.com`,
    );
  }
  return ascii;
}

/**
 * The domain of an email as claimed domains are stored (lower case, no trailing dot,
 * internationalised names in their ASCII form), or null when it has none: the one way every
 * library works out an email's domain (single sign-on routing, sign-up, SCIM's verified domains).
 */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return null;
  const raw = email
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
  const domain = raw.length > 0 && raw.length <= 253 ? domainToASCII(raw) : '';
  return domain || null;
}

/** Second-level labels under which country domains hand out names (`yahoo.co.jp`, `gmx.com.br`). */
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'ne', 'or']);

/**
 * Whether the domain belongs to a public mail service (`PUBLIC_EMAIL_DOMAINS`), which no
 * organisation may claim. `name.*` covers `name.<tld>` and `name.<co|com|…>.<tld>` only, so a
 * company's own `live.example.com` is not caught by `live.*`.
 */
export function isPublicEmailDomain(domain: string): boolean {
  return PUBLIC_EMAIL_DOMAINS.some((entry) => {
    if (!entry.endsWith('.*')) return domain === entry;
    const prefix = entry.slice(0, -1);
    if (!domain.startsWith(prefix)) return false;
    const rest = domain.slice(prefix.length).split('.');
    return rest.length === 1 || (rest.length === 2 && SECOND_LEVEL.has(rest[0]));
  });
}
