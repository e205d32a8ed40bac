export * from './policy.module';
export * from './policy-gate';
export * from './policy.service';
export * from './policy.dto';
export * from './policy-rules';
export { canonicalSha256, type AgentCall } from './call-facts';
export { OrganizationPolicy } from './entities/organization-policy.entity';
export * from './client-names';
