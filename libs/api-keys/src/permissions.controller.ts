import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '@app/common';
import { AGENT_PERMISSIONS } from '@app/capabilities';
import { API_KEY_PERMISSIONS } from '@app/credential-store';
import { RestAuth } from '@app/credentials';
import { PermissionCataloguesDto } from './dto/api-key.dto';

const CATALOGUES: PermissionCataloguesDto = {
  agent: Object.entries(AGENT_PERMISSIONS).map(([name, description]) => ({ name, description })),
  apiKey: Object.entries(API_KEY_PERMISSIONS).map(([name, description]) => ({ name, description })),
};

@ApiTags('permissions')
@ApiBearerAuth()
@Controller('api/permissions')
export class PermissionsController {
  @Get()
  @RestAuth()
  @ApiOperation({ summary: 'Both permission catalogues with descriptions (any session or rk_ key)' })
  @ApiOkResponse({ type: PermissionCataloguesDto })
  @ApiErrors(401, 403)
  catalogues(): PermissionCataloguesDto {
    return CATALOGUES;
  }
}
