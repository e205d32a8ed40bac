export * from './api-keys.errors';
export * from './api-keys.module';
export * from './api-keys.service';
export * from './dto/api-key.dto';
export * from './dto/create-api-key.dto';
