export * from './invitations.service';
export * from './login-attempt-limits.service';
export * from './members.service';
export * from './password-check.service';
export * from './people.errors';
export * from './people.module';
export * from './people.types';
