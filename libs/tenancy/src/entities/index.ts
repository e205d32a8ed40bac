import { Membership } from './membership.entity';
import { Organization } from './organization.entity';
import { Project } from './project.entity';
import { User } from './user.entity';

/**
 * Tenancy's entities, for a data source built outside Nest (the command line); everything else
 * reaches these tables through tenancy's services.
 */
export const TENANCY_ENTITIES = [User, Organization, Membership, Project];
