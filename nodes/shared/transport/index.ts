// The only module of the package that talks HTTP. The trigger node imports it
// too, so both nodes share one rate limit per API key.
export type { ApiRequestOptions, OmnichannelContext } from './types';
export { apiRequest } from './request';
export { credentialDerivedKey, deriveKey } from './credentials';
export { apiRequestAllItems, listPage, PER_PAGE_MAX } from './pagination';
export type { ListOptions, ListPage } from './pagination';
export { apiRequestWindowItems, readWindow } from './window';
export type { TimeWindow, WindowOptions, WindowPageHandler, WindowStats } from './window';
export { DEFAULT_REQUESTS_PER_SECOND, MAX_CONCURRENT_REQUESTS } from './rateLimiter';
export { MAX_ATTEMPTS } from './retry';
