/** One JSON request to the sandbox (public API with a key, or control without), shared by the test harnesses. */
export async function sandboxRequest(
	url: string,
	method: string,
	body?: unknown,
	key?: string,
): Promise<{ status: number; body: any; text: string }> {
	const response = await fetch(url, {
		method,
		headers: {
			...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
			...(key ? { Authorization: `Bearer ${key}` } : {}),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}
