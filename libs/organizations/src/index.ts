export * from './entities/organization.entity';
export * from './entities/project.entity';
export * from './entities/membership.entity';
