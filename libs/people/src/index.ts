export * from './invitations.service';
export * from './members.service';
export * from './people.errors';
export * from './people.module';
export * from './people.types';
