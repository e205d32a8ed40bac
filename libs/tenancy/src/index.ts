export * from './email';
export * from './membership-directory.service';
export * from './organization-directory.service';
export * from './password-hasher';
export * from './project-directory.service';
export * from './roles';
export * from './tenancy.module';
export * from './user-directory.service';
