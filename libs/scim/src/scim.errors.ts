import { DomainError, type ErrorKind } from '@app/common';

/** RFC 7644 §3.12 `scimType` values this service answers with. */
export type ScimType = 'uniqueness' | 'invalidFilter' | 'invalidValue' | 'mutability' | 'invalidPath' | 'noTarget' | 'invalidSyntax' | 'tooMany';

/**
 * A refusal of a SCIM request, with the RFC 7644 `scimType` that names its cause where the RFC
 * has one. The SCIM filter answers it in the SCIM error format.
 */
export class ScimError extends DomainError {
  constructor(
    code: string,
    message: string,
    kind: ErrorKind = 'invalid_input',
    readonly scimType?: ScimType,
  ) {
    super(code, message, kind);
    this.name = 'ScimError';
  }

  static invalidValue(message: string): ScimError {
    return new ScimError('scim_invalid_value', message, 'invalid_input', 'invalidValue');
  }

  static invalidPath(message: string): ScimError {
    return new ScimError('scim_invalid_path', message, 'invalid_input', 'invalidPath');
  }

  static invalidFilter(message: string): ScimError {
    return new ScimError('scim_invalid_filter', message, 'invalid_input', 'invalidFilter');
  }

  static invalidSyntax(message: string): ScimError {
    return new ScimError('scim_invalid_syntax', message, 'invalid_input', 'invalidSyntax');
  }

  static mutability(message: string): ScimError {
    return new ScimError('scim_mutability', message, 'invalid_input', 'mutability');
  }

  static noTarget(message: string): ScimError {
    return new ScimError('scim_no_target', message, 'invalid_input', 'noTarget');
  }
}

/** A `scim_` token cannot create, reactivate or change the role of the person who made it (SPEC §10). */
export class ScimTokenMakerError extends ScimError {
  constructor(what: string) {
    super('scim_token_maker', `This SCIM token cannot ${what} the person who made it: ask another admin of the organisation`, 'forbidden');
  }
}

export class ScimUserNotFoundError extends ScimError {
  constructor() {
    super('not_found', 'No such user in this organisation', 'not_found');
  }
}

export class ScimUserNameTakenError extends ScimError {
  constructor() {
    super('scim_uniqueness', 'A user with this userName is already provisioned in this organisation', 'conflict', 'uniqueness');
  }
}

export class ScimDomainNotVerifiedError extends ScimError {
  constructor(domain: string) {
    super(
      'scim_domain_not_verified',
      `userName must be an email of a verified domain of this organisation; ${domain.slice(0, 200)} is not one`,
      'invalid_input',
      'invalidValue',
    );
  }
}
