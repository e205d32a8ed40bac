import type { AppConfig } from '@app/config';
import { DomainError, isUuid, NotFoundError } from '@app/common';
import { IdentityProviderSettings } from '@app/identity';
import { type CliIo, EXIT, migrate, withContext } from './cli-context';
import { USAGE } from './usage';

/** `verify-domain --organization --domain`: the operator's verification of a claimed email domain. */
export async function verifyDomain(config: AppConfig, organizationId: string | undefined, domain: string | undefined, io: CliIo): Promise<number> {
  if (!organizationId || !domain) {
    io.stderr.write(`verify-domain needs --organization and --domain.\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (!isUuid(organizationId)) {
    io.stderr.write(`--organization must be an organization id (a UUID), not ${JSON.stringify(String(organizationId).slice(0, 100))}.\n`);
    return EXIT.usage;
  }
  return withContext(config, io, 'verify-domain', async (app) => {
    await migrate(app, io);
    try {
      const verified = await app.get(IdentityProviderSettings).verifyDomainAsOperator(organizationId, domain, { actorType: 'cli', actorId: null });
      io.stdout.write(`${verified.domain} is verified for organization ${organizationId} (since ${verified.verifiedAt?.toISOString()}).\n`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof DomainError) {
        io.stderr.write(`${error.message}\n`);
        return error.kind === 'invalid_input' ? EXIT.usage : EXIT.failed;
      }
      throw error;
    }
  });
}

/**
 * `sso-require-off` and `identity-provider-disconnect --organization`: the operator's way back
 * into an organisation whose identity provider broke while "require single sign-on" was on.
 */
export async function identityProviderCommand(
  command: 'sso-require-off' | 'identity-provider-disconnect',
  config: AppConfig,
  organizationId: string | undefined,
  io: CliIo,
): Promise<number> {
  if (!organizationId) {
    io.stderr.write(`${command} needs --organization.\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (!isUuid(organizationId)) {
    io.stderr.write(`--organization must be an organization id (a UUID), not ${JSON.stringify(String(organizationId).slice(0, 100))}.\n`);
    return EXIT.usage;
  }
  return withContext(config, io, command, async (app) => {
    await migrate(app, io);
    const settings = app.get(IdentityProviderSettings);
    const actor = { actorType: 'cli', actorId: null };
    try {
      if (command === 'sso-require-off') {
        const outcome = await settings.turnOffRequireSso(organizationId, actor);
        io.stdout.write(
          outcome.wasOn
            ? `Single sign-on is no longer required in organization ${organizationId}: password sessions open it again. The identity provider ${outcome.issuer} stays connected.\n`
            : `Single sign-on was not required in organization ${organizationId}; nothing changed.\n`,
        );
      } else {
        await settings.remove(organizationId, actor);
        io.stdout.write(`The identity provider of organization ${organizationId} is disconnected and its email-domain claims are deleted.\n`);
      }
      return EXIT.ok;
    } catch (error) {
      if (error instanceof NotFoundError) {
        io.stderr.write(`Organization ${organizationId} has no identity provider.\n`);
        return EXIT.failed;
      }
      if (error instanceof DomainError) {
        io.stderr.write(`${error.message}\n`);
        return EXIT.failed;
      }
      throw error;
    }
  });
}
