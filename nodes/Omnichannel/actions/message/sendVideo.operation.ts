import { mediaOperation } from './media';

export const { description, execute } = mediaOperation('video', 'sendVideo');
