export * from './dashboard.module';
export { isPageRequest, NotFoundPage } from './not-found-page';
