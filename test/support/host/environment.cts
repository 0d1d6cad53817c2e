// Imported before n8n-core: InstanceSettings writes <N8N_USER_FOLDER>/.n8n/config
// on first use (an encryption key), which must not land in the home folder.
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'omnichannel-n8n-host-'));
process.env.N8N_ENCRYPTION_KEY ??= 'omnichannel-node-tests';
