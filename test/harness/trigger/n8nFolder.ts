// n8n-core's InstanceSettings creates <N8N_USER_FOLDER>/.n8n/config on first
// use; this keeps it out of the home folder. Imported before n8n-core.
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'omnichannel-trigger-n8n-'));
