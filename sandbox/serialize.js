'use strict';
// Public resource shapes. Records carry internal
// fields (prefixed "_" or not public, like a contact's comment); only these
// functions decide what a client sees. Records keep times as epoch ms
// (`_c` created, `_u` updated); the ISO 8601 strings are made here.

const { iso } = require('./clock');

/** @param {any} c */
function contact(c) {
	return {
		id: c.id,
		app_id: c.app_id,
		name: c.name,
		phone: c.phone,
		email: c.email,
		company: c.company,
		job_title: c.job_title,
		lead_status: c.lead_status,
		lead_source: c.lead_source,
		address: c.address,
		city: c.city,
		country: c.country,
		created_at: iso(c._c),
		updated_at: iso(c._u),
	};
}

/** @param {any} c */
function conversation(c) {
	return {
		id: c.id,
		app_id: c.app_id,
		channel: c.channel,
		channel_id: c.channel_id,
		external_id: c.external_id,
		customer_id: c.customer_id,
		status: c.status,
		created_at: iso(c._c),
		updated_at: iso(c._u),
	};
}

/** @param {any} m */
function message(m) {
	return {
		id: m.id,
		app_id: m.app_id,
		conversation_id: m.conversation_id,
		message_session_id: m.message_session_id,
		channel_id: m.channel_id,
		channel: m.channel,
		from_user_id: m.from_user_id,
		from_customer: m.from_customer,
		client_request_id: m.client_request_id,
		content: m.content,
		message_type: m.message_type,
		send_state: m.send_state,
		created_at: iso(m._c),
		updated_at: iso(m._u),
	};
}

/** The control surface's view: the Message plus how it was attributed and what it carried. */
function storedMessage(m) {
	return {
		...message(m),
		as_system: m.as_system,
		reply_to_message_id: m.reply_to_message_id,
		attributed_to: m.from_customer ? 'customer' : m.as_system ? 'system' : 'user',
		requested_from_user_id: m.requested_from_user_id,
		...(m.media || {}),
		...(m.location || {}),
	};
}

/** @param {any} ch */
function channel(ch) {
	return {
		id: ch.id,
		app_id: ch.app_id,
		type: ch.type,
		external_id: ch.external_id,
		name: ch.name,
		username: ch.username,
		phone_number: ch.phone_number,
		email: ch.email,
		is_active: ch.is_active,
		created_at: iso(ch._c),
	};
}

/** @param {any} w */
function webhook(w) {
	return {
		id: w.id,
		app_id: w.app_id,
		url: w.url,
		events: w.events.slice(),
		description: w.description,
		is_active: w.is_active,
		created_at: iso(w._c),
	};
}

module.exports = { contact, conversation, message, storedMessage, channel, webhook };
