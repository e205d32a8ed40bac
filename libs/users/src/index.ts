export * from './entities/user.entity';
export * from './password-hasher';
