import { Membership } from './membership.entity';
import { Organization } from './organization.entity';
import { Project } from './project.entity';
import { User } from './user.entity';

/** Tenancy's entities, registered together (their foreign keys name each other). */
export const TENANCY_ENTITIES = [User, Organization, Membership, Project];
