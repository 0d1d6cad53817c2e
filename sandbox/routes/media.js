'use strict';
// POST /messages/image|audio|video|document: multipart/form-data sends
// The file is streamed through a SHA-256 hash and counted,
// never kept: the control surface reports name, type, size and digest.

const crypto = require('node:crypto');
const { badRequest } = require('../errors');
const { codePointLength } = require('../validate');
const { checkIdempotency, resolveSendTarget, sendOutbound } = require('../messaging');
const serialize = require('../serialize');

const CAPTION_MAX = 1024;
/** Content types each kind accepts; document takes any. */
const KINDS = {
	image: (type) => type.startsWith('image/'),
	audio: (type) => type.startsWith('audio/'),
	video: (type) => type.startsWith('video/'),
	document: () => true,
};
const TEXT_FIELDS = new Set(['conversation_id', 'client_request_id', 'caption', 'reply_to_message_id', 'as_system', 'from_user_id']);

/**
 * Reads the whole form (so the connection stays usable whatever we answer).
 * @returns {Promise<{ fields: Map<string, string>, file: null | { file_name: string, content_type: string, size: number, sha256: string } }>}
 */
async function readForm(req) {
	if (!req.isMultipart()) throw badRequest('request must be multipart/form-data');
	let form;
	try {
		form = await collectParts(req);
	} catch (error) {
		// Parser errors with a status (413 limits...) keep it; busboy's own
		// errors (truncated or malformed bodies) are the client's fault.
		if (error && (error.statusCode || error.code)) throw error;
		throw badRequest('invalid multipart body');
	}
	if (form.strayFile) throw badRequest('the file must be sent in the field "file"');
	return form;
}

/** Streams every part: files through a SHA-256 hash, wanted text fields into `fields`. */
async function collectParts(req) {
	/** @type {Map<string, string>} */
	const fields = new Map();
	let file = null;
	let strayFile = false;
	for await (const part of req.parts()) {
		if (part.type === 'file') {
			const hash = crypto.createHash('sha256');
			let size = 0;
			for await (const chunk of part.file) {
				hash.update(chunk);
				size += chunk.length;
			}
			if (part.fieldname !== 'file') strayFile = true;
			else file = { file_name: part.filename, content_type: String(part.mimetype || '').toLowerCase(), size, sha256: hash.digest('hex') };
		} else if (TEXT_FIELDS.has(part.fieldname)) {
			fields.set(part.fieldname, typeof part.value === 'string' ? part.value : String(part.value));
		}
	}
	return { fields, file, strayFile };
}

/** "true"/"false" form values. @returns {boolean | undefined} */
function formBoolean(fields, name) {
	const value = fields.get(name);
	if (value === undefined || value === '') return undefined;
	if (value === 'true') return true;
	if (value === 'false') return false;
	throw badRequest(`${name} must be "true" or "false"`);
}

/** @param {keyof typeof KINDS} kind */
function mediaRoute(ctx, kind) {
	return {
		method: 'POST',
		url: `/messages/${kind}`,
		scope: 'messages:write',
		handler: async (req, reply, { ws, key }) => {
			const { fields, file } = await readForm(req);
			const { clientRequestId, existing } = checkIdempotency(ws, Object.fromEntries(fields));
			if (existing) return { message: serialize.message(existing) };
			const target = resolveSendTarget(ws, key, {
				conversation_id: fields.get('conversation_id'),
				reply_to_message_id: fields.get('reply_to_message_id') || undefined,
				as_system: formBoolean(fields, 'as_system'),
				from_user_id: fields.get('from_user_id'),
			});
			if (!file) throw badRequest('file is required');
			if (!file.file_name) throw badRequest('file must have a file name');
			if (!file.content_type) throw badRequest('file must have a content type');
			if (!KINDS[kind](file.content_type)) throw badRequest(`file content type must be ${kind}/*`);
			const caption = fields.get('caption') ?? '';
			// Decision: an empty caption field is "no caption", also for audio.
			if (kind === 'audio' && caption !== '') throw badRequest('caption is not accepted for audio');
			if (codePointLength(caption) > CAPTION_MAX) throw badRequest(`caption must be at most ${CAPTION_MAX} characters`);
			const message = sendOutbound(ctx, ws, target, { clientRequestId, message_type: kind, content: caption, media: file });
			return { message: serialize.message(message) };
		},
	};
}

/** @returns {import('../server').RouteDefinition[]} */
module.exports = (ctx) => Object.keys(KINDS).map((kind) => mediaRoute(ctx, /** @type {keyof typeof KINDS} */ (kind)));
