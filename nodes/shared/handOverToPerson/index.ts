export * from './marker';
export * from './state';
