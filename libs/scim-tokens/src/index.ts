export * from './scim-tokens.module';
export * from './scim-tokens.service';
export * from './scim-tokens.errors';
export * from './dto/scim-token.dto';
