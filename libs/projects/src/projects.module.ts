import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { ProjectsService } from './projects.service';

/**
 * An organisation's projects, without HTTP (docs/architecture.md): listing, creation, renaming
 * and deletion with what it revokes (`ProjectsService`), on `tenancy`'s `ProjectDirectory` and
 * `ProjectCreator`. `organizations` (the REST routes) and the dashboard are adapters over it.
 */
@Module({
  imports: [TenancyModule],
  providers: [ProjectsService],
  exports: [ProjectsService],
})
export class ProjectsModule {}
