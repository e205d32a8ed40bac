export * from './sso.module';
export * from './dto/identity-provider.dto';
