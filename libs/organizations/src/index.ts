export * from './entities/organization.entity';
export * from './entities/project.entity';
export * from './entities/membership.entity';
export * from './capabilities/get-project.capability';
export * from './capabilities/project-capabilities.module';
