import { Invitation } from './invitation.entity';
import { Membership } from './membership.entity';
import { MembershipEnding } from './membership-ending.entity';
import { Organization } from './organization.entity';
import { PasswordResetLink } from './password-reset-link.entity';
import { Project } from './project.entity';
import { SignInSession } from './sign-in-session.entity';
import { User } from './user.entity';

/** Tenancy's entities, registered together (their foreign keys name each other). */
export const TENANCY_ENTITIES = [User, Organization, Membership, MembershipEnding, Project, Invitation, PasswordResetLink, SignInSession];
