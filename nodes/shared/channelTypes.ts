/** Display names of the API's channel types (docs/api-assumptions.md, "Identifiers and enumerations"). */
export const CHANNEL_TYPE_LABELS: Readonly<Record<string, string>> = {
	email: 'Email',
	facebook: 'Facebook',
	instagram: 'Instagram',
	livechat: 'Live Chat',
	telegram: 'Telegram',
	whatsapp: 'WhatsApp',
	whatsapp_business: 'WhatsApp Business',
};

/** The display name of a channel type; a type the service adds later shows as sent. */
export function channelTypeLabel(type: unknown): string {
	const value = String(type ?? '');
	return CHANNEL_TYPE_LABELS[value] ?? value;
}

/** The channel types as options of a multiOptions filter (both triggers offer one). */
export const CHANNEL_TYPE_OPTIONS = Object.entries(CHANNEL_TYPE_LABELS).map(([value, name]) => ({ name, value }));
