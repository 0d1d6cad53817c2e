'use strict';
// Media sends (multipart) and location sends, with the attribution overrides
// as form fields / JSON fields.

const crypto = require('node:crypto');
const { useDemoSandbox } = require('./helpers');

const t = useDemoSandbox();

let serial = 0;
const crid = () => `media-${++serial}`;
const MiB = 1024 * 1024;

/**
 * Posts a multipart form. `file`: { bytes, type, name } or null; other fields as strings.
 */
async function sendMedia(kind, { file = { bytes: Buffer.from('PNGDATA'), type: 'image/png', name: 'photo.png' }, ...fields } = {}) {
	const form = new FormData();
	const all = { conversation_id: t.world.active.id, client_request_id: crid(), ...fields };
	for (const [name, value] of Object.entries(all)) if (value !== undefined) form.set(name, value);
	if (file) form.set('file', new Blob([file.bytes], { type: file.type }), file.name);
	const response = await fetch(`${t.sb.base_url}/messages/${kind}`, { method: 'POST', headers: { Authorization: `Bearer ${t.sb.key}` }, body: form });
	const text = await response.text();
	return { status: response.status, body: JSON.parse(text) };
}

const stored = async (id) => (await t.control.get(`/messages/${id}`)).body;

describe('media sends (POST /messages/{image,audio,video,document})', () => {
	test.each([
		['image', 'image/jpeg', 'a.jpg'],
		['audio', 'audio/ogg', 'voice.ogg'],
		['video', 'video/mp4', 'clip.mp4'],
		['document', 'application/pdf', 'invoice.pdf'],
		['document', 'text/csv', 'data.csv'],
		['document', 'image/png', 'scan.png'],
	])('%s with %s: 200, message_type is the kind, details stored', async (kind, type, name) => {
		const bytes = crypto.randomBytes(3000);
		const caption = kind === 'audio' ? undefined : `a ${kind}`;
		const res = await sendMedia(kind, { file: { bytes, type, name }, caption });
		expect(res.status).toBe(200);
		expect(res.body.message).toMatchObject({ message_type: kind, content: caption ?? '', from_customer: false, from_user_id: t.world.owner });
		expect(await stored(res.body.message.id)).toMatchObject({
			file_name: name,
			content_type: type,
			size: 3000,
			sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
		});
	});

	test('content is the empty string without a caption', async () => {
		expect((await sendMedia('image')).body.message.content).toBe('');
	});

	test.each([
		['image', 'application/pdf'],
		['image', 'video/mp4'],
		['audio', 'image/png'],
		['video', 'audio/mpeg'],
	])('%s refuses content type %s', async (kind, type) => {
		const res = await sendMedia(kind, { file: { bytes: Buffer.from('x'), type, name: 'f.bin' } });
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('caption: up to 1024 code points; not accepted for audio', async () => {
		expect((await sendMedia('image', { caption: '😀'.repeat(1024) })).status).toBe(200);
		expect((await sendMedia('image', { caption: 'x'.repeat(1025) })).status).toBe(400);
		const audio = await sendMedia('audio', { file: { bytes: Buffer.from('ogg'), type: 'audio/ogg', name: 'a.ogg' }, caption: 'no' });
		expect(audio.status).toBe(400);
	});

	test('file, conversation_id and client_request_id are required', async () => {
		expect((await sendMedia('image', { file: null })).status).toBe(400);
		expect((await sendMedia('image', { conversation_id: undefined })).status).toBe(400);
		expect((await sendMedia('image', { client_request_id: undefined })).status).toBe(400);
		expect((await sendMedia('image', { conversation_id: 'conv_unknown' })).status).toBe(400);
	});

	test('a "file" field without a file name is not a file', async () => {
		const form = new FormData();
		form.set('conversation_id', t.world.active.id);
		form.set('client_request_id', crid());
		form.set('file', 'just text');
		const response = await fetch(`${t.sb.base_url}/messages/document`, { method: 'POST', headers: { Authorization: `Bearer ${t.sb.key}` }, body: form });
		expect(response.status).toBe(400);
	});

	test('a JSON body is refused with 400', async () => {
		const res = await t.api.post('/messages/image', { conversation_id: t.world.active.id, client_request_id: crid() });
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('25 MiB is accepted; larger is 413 with a JSON error, and the server keeps serving', async () => {
		const exact = await sendMedia('document', { file: { bytes: Buffer.alloc(25 * MiB, 7), type: 'application/zip', name: 'max.zip' } });
		expect(exact.status).toBe(200);
		expect((await stored(exact.body.message.id)).size).toBe(25 * MiB);
		const id = crid();
		const tooBig = await sendMedia('video', { client_request_id: id, file: { bytes: Buffer.alloc(25 * MiB + 1), type: 'video/mp4', name: 'big.mp4' } });
		expect(tooBig.status).toBe(413);
		expect(tooBig.body).toEqual({ error: expect.any(String) });
		// Nothing was created for the refused upload: the id is still free.
		expect((await sendMedia('image', { client_request_id: id })).body.message.message_type).toBe('image');
		expect((await t.api.get('/me')).status).toBe(200);
	});

	test('idempotency: a repeat returns the original, whatever the form says', async () => {
		const id = crid();
		const first = (await sendMedia('image', { client_request_id: id, caption: 'first' })).body.message;
		const again = await sendMedia('video', { client_request_id: id, caption: 'second', file: null });
		expect(again.status).toBe(200);
		expect(again.body.message).toMatchObject({ id: first.id, message_type: 'image', content: 'first' });
		const asText = await t.api.post('/messages/text', { client_request_id: id, conversation_id: t.world.active.id, text: 'x' });
		expect(asText.body.message.id).toBe(first.id);
	});

	test('rule 5: as_system and from_user_id as form fields', async () => {
		const system = (await sendMedia('image', { as_system: 'true', from_user_id: t.world.agent })).body.message;
		expect(system.from_user_id).toBeNull();
		expect((await stored(system.id)).as_system).toBe(true);
		expect((await sendMedia('image', { from_user_id: t.world.agent, as_system: 'false' })).body.message.from_user_id).toBe(t.world.agent);
		expect((await sendMedia('image', { as_system: 'yes' })).status).toBe(400);
		expect((await sendMedia('image', { from_user_id: 'usr_unknown' })).status).toBe(400);
	});

	test('reply_to_message_id as a form field must be in the same conversation', async () => {
		const target = (await sendMedia('image')).body.message;
		const ok = await sendMedia('image', { reply_to_message_id: target.id });
		expect((await stored(ok.body.message.id)).reply_to_message_id).toBe(target.id);
		expect((await sendMedia('image', { conversation_id: t.world.other.id, reply_to_message_id: target.id })).status).toBe(400);
	});
});

describe('location sends (POST /messages/location)', () => {
	const sendLocation = (body) =>
		t.api.post('/messages/location', { conversation_id: t.world.active.id, client_request_id: crid(), latitude: 52.52, longitude: 13.405, ...body });

	test('200 with message_type location and content "<lat>,<lng>"', async () => {
		const res = await sendLocation({ name: 'Brandenburg Gate', address: 'Pariser Platz, Berlin' });
		expect(res.status).toBe(200);
		expect(res.body.message).toMatchObject({ message_type: 'location', content: '52.52,13.405', from_user_id: t.world.owner });
		expect(await stored(res.body.message.id)).toMatchObject({ latitude: 52.52, longitude: 13.405, name: 'Brandenburg Gate' });
	});

	test.each([
		[{ latitude: -90, longitude: -180 }, '-90,-180'],
		[{ latitude: 90, longitude: 180 }, '90,180'],
		[{ latitude: 0, longitude: 0 }, '0,0'],
	])('bounds are inclusive: %j', async (coords, content) => {
		const res = await sendLocation(coords);
		expect(res.status).toBe(200);
		expect(res.body.message.content).toBe(content);
	});

	test.each([
		{ latitude: 90.0001 },
		{ latitude: -91 },
		{ longitude: 180.5 },
		{ longitude: -181 },
		{ latitude: '52.5' },
		{ longitude: null },
		{ latitude: undefined },
	])('400 for %j', async (override) => {
		// An undefined value drops the field from the JSON: "missing".
		const res = await sendLocation(override);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.any(String) });
	});

	test('attribution overrides and idempotency apply', async () => {
		const id = crid();
		const system = (await sendLocation({ client_request_id: id, as_system: true })).body.message;
		expect(system.from_user_id).toBeNull();
		const again = await sendLocation({ client_request_id: id, latitude: 1, longitude: 1 });
		expect(again.body.message).toMatchObject({ id: system.id, content: '52.52,13.405' });
		expect((await sendLocation({ from_user_id: t.world.agent })).body.message.from_user_id).toBe(t.world.agent);
	});
});
