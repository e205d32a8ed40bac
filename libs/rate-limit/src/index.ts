export * from './rate-limit.module';
export * from './rate-limit.service';
export { SharedBudgets, WindowBudget, LEASE_SHARE } from './shared-window-budget';
