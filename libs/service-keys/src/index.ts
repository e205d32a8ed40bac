export * from './dto/create-service-key.dto';
export * from './dto/derive-project-token.dto';
export * from './dto/service-key.dto';
export * from './service-keys.errors';
export * from './service-keys.module';
export * from './service-keys.service';
