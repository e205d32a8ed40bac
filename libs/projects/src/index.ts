export * from './dto/create-project.dto';
export * from './dto/project.dto';
export * from './projects.errors';
export * from './projects.module';
export * from './projects.service';
