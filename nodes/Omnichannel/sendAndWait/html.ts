/** HTML text of the pages a person opens from a Send and Wait message. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(value: unknown): string {
	return String(value ?? '').replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

/** Text whose line breaks show as line breaks. */
export function paragraphs(value: string): string {
	return value
		.split(/\r?\n\s*\r?\n/)
		.map((block) => block.trim())
		.filter((block) => block !== '')
		.map((block) => `<p>${escapeHtml(block).replace(/\r?\n/g, '<br>')}</p>`)
		.join('\n');
}

/** One stylesheet for every page, from a phone to a desktop, light and dark; no scripts, fonts or images. */
const STYLE = `
:root { color-scheme: light dark; --bg: #f4f5f7; --card: #fff; --text: #1d2330; --muted: #5b6474; --line: #d5d9e0;
  --accent: #2456d6; --accent-text: #fff; --danger: #b42318; --ok: #137333; }
@media (prefers-color-scheme: dark) { :root { --bg: #14161b; --card: #1e2129; --text: #e8eaee; --muted: #a3aab8;
  --line: #3a3f4b; --accent: #6d95ff; --accent-text: #0b1020; --danger: #ff8a80; --ok: #7bd88f; } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; min-height: 100vh; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 36rem; margin: 0 auto; padding: 1rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1.25rem; margin-top: 1rem; }
@media (min-width: 40rem) { main { padding: 3rem 1rem; } .card { padding: 2rem; } }
h1 { font-size: 1.375rem; line-height: 1.3; margin: 0 0 0.75rem; }
p { margin: 0 0 0.75rem; overflow-wrap: anywhere; }
.question { border-left: 4px solid var(--accent); padding: 0.25rem 0 0.25rem 0.875rem; margin: 0 0 1.25rem; }
.muted { color: var(--muted); font-size: 0.9375rem; }
.status { font-size: 2.5rem; line-height: 1; margin-bottom: 0.5rem; }
.ok { color: var(--ok); } .warn { color: var(--danger); }
label { display: block; font-weight: 600; margin: 1rem 0 0.375rem; }
.optional { font-weight: 400; color: var(--muted); }
input, select, textarea { width: 100%; font: inherit; color: inherit; background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; padding: 0.625rem 0.75rem; min-height: 44px; }
textarea { min-height: 8rem; resize: vertical; }
input:focus, select:focus, textarea:focus, button:focus { outline: 3px solid var(--accent); outline-offset: 1px; }
.error { color: var(--danger); font-size: 0.9375rem; margin: 0.375rem 0 0; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1.5rem; }
button { font: inherit; font-weight: 600; min-height: 48px; padding: 0.625rem 1.5rem; border-radius: 8px; cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text); flex: 1 1 12rem; }
button.secondary { background: transparent; color: var(--accent); }
`;

export interface PageParts {
	/** The browser tab's title and the page's heading. */
	title: string;
	/** HTML inside the card, after the heading. */
	body: string;
	/** A symbol above the heading, e.g. ✓. */
	status?: { symbol: string; tone: 'ok' | 'warn' };
}

export function renderPage({ title, body, status }: PageParts): string {
	const mark = status
		? `<div class="status ${status.tone}" aria-hidden="true">${escapeHtml(status.symbol)}</div>\n`
		: '';
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<div class="card">
${mark}<h1>${escapeHtml(title)}</h1>
${body}
</div>
</main>
</body>
</html>
`;
}
