import { randomBytes } from 'crypto';

export interface MultipartFile {
	fileName: string;
	contentType: string;
	data: Buffer;
}

export interface MultipartBody {
	body: Buffer;
	contentType: string;
}

/** Quotes a value for a Content-Disposition parameter (RFC 7578 §4.2). */
function quoted(value: string): string {
	return `"${value.replace(/[\r\n]/g, ' ').replace(/"/g, '%22')}"`;
}

/** A multipart/form-data body as one Buffer, which (unlike a stream or FormData) can be sent again unchanged when the transport retries. */
export function buildMultipart(fields: Record<string, string | undefined>, file: MultipartFile): MultipartBody {
	const boundary = `----n8nOmnichannel${randomBytes(12).toString('hex')}`;
	const chunks: Buffer[] = [];
	for (const [name, value] of Object.entries(fields)) {
		if (value === undefined) continue;
		chunks.push(
			Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`, 'utf8'),
		);
	}
	chunks.push(
		Buffer.from(
			`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=${quoted(file.fileName)}\r\n` +
				`Content-Type: ${file.contentType}\r\n\r\n`,
			'utf8',
		),
		file.data,
		Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
	);
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
