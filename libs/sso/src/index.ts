export * from './dto/identity-provider.dto';
export * from './sso-relying-party';
export * from './roles-from-groups';
export * from './sso-sign-in.service';
export * from './sso-sign-in.parts';
export * from './sso.errors';
export * from './sso.module';
