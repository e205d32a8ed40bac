import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { EnvBase, toBool, toStr } from './env-transforms';

/**
 * Which hosts outside the public internet the service may fetch from (SPEC §10, "Reaching
 * private and loopback hosts"): identity providers now, never client metadata documents.
 */
export function OutboundVariables<B extends EnvBase>(Base: B) {
  class OutboundVariables extends Base {
    /** Host names, or `host:port`, whose private addresses may be reached (comma-separated). */
    @Transform(toStr)
    @IsOptional()
    @IsString()
    OUTBOUND_ALLOW_HOSTS?: string;

    /** Development only: `http://127.0.0.1` and `localhost` (refused when NODE_ENV=production). */
    @Transform(toBool)
    @IsBoolean()
    OUTBOUND_ALLOW_LOOPBACK = false;
  }
  return OutboundVariables;
}

/** `OUTBOUND_ALLOW_HOSTS` entries: a DNS name (no IP literal, no wildcard), optionally `:port`. */
const ALLOWED_HOST = /^(?=.{1,253}(?::|$))(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::(\d{1,5}))?$/;

/** Lower-cased entries of `OUTBOUND_ALLOW_HOSTS`, and a sentence for each one that is not a host name. */
export function parseOutboundAllowHosts(value: string | undefined): { hosts: string[]; problems: string[] } {
  const hosts: string[] = [];
  const problems: string[] = [];
  for (const raw of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const entry = raw.toLowerCase();
    const match = ALLOWED_HOST.exec(entry);
    const port = match?.[1] === undefined ? undefined : Number(match[1]);
    if (!match || /^[\d.]+(?::\d+)?$/.test(entry) || (port !== undefined && (port < 1 || port > 65535))) {
      problems.push(
        `OUTBOUND_ALLOW_HOSTS: ${JSON.stringify(raw)} is not a host name or host:port (such as idp.corp.example or idp.corp.example:8443; IP addresses and wildcards are not accepted)`,
      );
    } else hosts.push(entry);
  }
  return { hosts, problems };
}
