export * from './accounts.service';
export * from './auth.errors';
export * from './auth.module';
export * from './auth.service';
export * from './dto/login.dto';
export * from './dto/session-token.dto';
export * from './dto/signup.dto';
export * from './auth-rate-limit.service';
