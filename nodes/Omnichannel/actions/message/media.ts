import type { IBinaryData, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionalString } from '../../../shared/parameterValues';
import { conversationLocator } from '../../../shared/resourceLocators';
import { buildMultipart } from './multipart';
import { readSendFields, sendCall } from './send';
import type { SendFields } from './send';
import { simplifyProperty } from '../../helpers/simplify';
import { ItemValidator } from '../../helpers/validation';
import { sendOptionsCollection } from '../../helpers/descriptions';
import type { OperationExecute } from '../../helpers/operation';

export type MediaKind = 'image' | 'audio' | 'video' | 'document';

/** Larger files are refused with 413 (docs/api-assumptions.md, "Messages"). */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
const MAX_CAPTION_LENGTH = 1024;
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

/** The MIME family each kind accepts; documents accept any type. */
const MIME_FAMILY: Record<MediaKind, string | undefined> = {
	image: 'image/',
	audio: 'audio/',
	video: 'video/',
	document: undefined,
};

/** Placeholders of the file options. */
const EXAMPLE_FILE: Record<MediaKind, { fileName: string; mimeType: string }> = {
	image: { fileName: 'chart.png', mimeType: 'image/png' },
	audio: { fileName: 'voice-note.ogg', mimeType: 'audio/ogg' },
	video: { fileName: 'demo.mp4', mimeType: 'video/mp4' },
	document: { fileName: 'invoice.pdf', mimeType: 'application/pdf' },
};

function fileOptions(kind: MediaKind): INodeProperties[] {
	const options: INodeProperties[] = [
		{
			displayName: 'File Name',
			name: 'fileName',
			type: 'string',
			default: '',
			placeholder: `e.g. ${EXAMPLE_FILE[kind].fileName}`,
			description: "File name to send. Defaults to the binary file's name.",
		},
		{
			displayName: 'MIME Type',
			name: 'mimeType',
			type: 'string',
			default: '',
			placeholder: `e.g. ${EXAMPLE_FILE[kind].mimeType}`,
			description: MIME_FAMILY[kind]
				? `Content type to send, ${MIME_FAMILY[kind]}*. Defaults to the binary file's MIME type.`
				: "Content type to send. Defaults to the binary file's MIME type.",
		},
	];
	// Audio takes no caption (docs/api-assumptions.md, "Messages").
	if (kind !== 'audio') {
		options.push({
			displayName: 'Caption',
			name: 'caption',
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			description: `Text shown with the ${kind}, up to ${MAX_CAPTION_LENGTH} characters`,
		});
	}
	return options;
}

/** Bytes of a binary file, when known without loading it. */
function knownSize(binary: IBinaryData): number | undefined {
	if (typeof binary.bytes === 'number') return binary.bytes;
	if (!binary.id && typeof binary.data === 'string') {
		const padding = binary.data.endsWith('==') ? 2 : binary.data.endsWith('=') ? 1 : 0;
		return Math.floor((binary.data.length * 3) / 4) - padding;
	}
	return undefined;
}

function checkSize(validator: ItemValidator, bytes: number | undefined): void {
	if (bytes !== undefined && bytes > MAX_FILE_BYTES) {
		validator.fail(
			'Input Binary Field',
			`the file has ${bytes} bytes; the most the API accepts is 25 MiB (${MAX_FILE_BYTES} bytes)`,
			'Send a file of at most 25 MiB, for example a compressed copy, or share a link to the file with Send Text.',
		);
	}
}

function stringFields(fields: SendFields, caption: string | undefined): Record<string, string | undefined> {
	return {
		conversation_id: fields.conversation_id,
		client_request_id: fields.client_request_id,
		reply_to_message_id: fields.reply_to_message_id,
		as_system: fields.as_system ? 'true' : undefined,
		from_user_id: fields.from_user_id,
		caption,
	};
}

/** Send Image, Send Audio, Send Video and Send Document differ only in their kind. */
export function mediaOperation(kind: MediaKind, operation: string): {
	description: INodeProperties[];
	execute: OperationExecute;
} {
	const label = kind.charAt(0).toUpperCase() + kind.slice(1);
	const description = updateDisplayOptions({ show: { resource: ['message'], operation: [operation] } }, [
		conversationLocator(),
		{
			displayName: 'Input Binary Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the input binary field containing the file to be sent',
			description: `Name of the input item's binary field that holds the ${kind}`,
		},
		...simplifyProperty('message'),
		sendOptionsCollection(fileOptions(kind)),
	]);

	const execute: OperationExecute = async function (this: IExecuteFunctions, itemIndex, run) {
		const validator = new ItemValidator(this.getNode(), itemIndex);
		const { fields, options } = readSendFields(this, validator, run, `message.${operation}`);
		const property = this.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string;
		const binary = this.getInputData()[itemIndex]?.binary?.[property];
		if (binary === undefined) {
			return validator.fail(
				'Input Binary Field',
				`the input item has no binary field "${property}"`,
				'Add the file upstream (e.g. with Read/Write Files from Disk or an HTTP Request), or enter the name of the binary field that holds it.',
			);
		}
		const mimeType = optionalString(options.mimeType) ?? binary.mimeType;
		const family = MIME_FAMILY[kind];
		if (!mimeType || !MIME_TYPE.test(mimeType.split(';')[0].trim())) {
			validator.fail(
				'MIME Type',
				`${mimeType ? `"${mimeType}"` : 'nothing'} is not a MIME type`,
				`Set the 'MIME Type' option to the file's type, e.g. ${EXAMPLE_FILE[kind].mimeType}.`,
			);
		}
		if (family && !mimeType.toLowerCase().startsWith(family)) {
			validator.fail(
				'MIME Type',
				`"${mimeType}" is not a${kind === 'image' || kind === 'audio' ? 'n' : ''} ${kind} type (${family}*)`,
				`Send ${label} needs a file of type ${family}*. Use Send Document for other files, or set the 'MIME Type' option if the file's type was detected wrongly.`,
			);
		}
		const caption = kind === 'audio' ? undefined : optionalString(options.caption);
		if (caption !== undefined) validator.text('Caption', caption, 1, MAX_CAPTION_LENGTH);
		checkSize(validator, knownSize(binary));
		const fileName =
			optionalString(options.fileName) ??
			binary.fileName ??
			`${kind}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;

		return sendCall(this, itemIndex, run, `/messages/${kind}`, async () => {
			// Read when the send starts, so large batches do not hold every file at once.
			const data = await this.helpers.getBinaryDataBuffer(itemIndex, property);
			checkSize(validator, data.length);
			const multipart = buildMultipart(stringFields(fields, caption), { fileName, contentType: mimeType, data });
			return { body: multipart.body, headers: { 'Content-Type': multipart.contentType } };
		});
	};

	return { description, execute };
}
