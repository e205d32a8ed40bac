export * from './auth.module';
export * from './dto/login.dto';
export * from './dto/session-token.dto';
