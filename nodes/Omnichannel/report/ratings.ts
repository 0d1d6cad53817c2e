/**
 * A rating's score, read from its `content` (docs/api-assumptions.md,
 * "Decisions where the API is silent": the API names the `rating` type but
 * not how a score is written). Accepted, on a scale of 1 to 5, spaces
 * around allowed: a number (`4`, `4.5`, `4,5`), the same out of 5 (`4/5`,
 * `4 / 5`, `4 of 5`, `4 out of 5`), stars (`4 stars`, `★★★★`, `★★★★☆`,
 * `⭐⭐⭐⭐`). Anything else (words, another scale, a number outside 1 to 5)
 * has no score: the rating is counted, its score is not.
 */
const NUMBER = '([0-9](?:[.,][0-9]+)?)';
const PLAIN = new RegExp(`^${NUMBER}$`);
const OUT_OF_FIVE = new RegExp(`^${NUMBER}\\s*(?:/|of|out of)\\s*5$`, 'i');
const STARS_WORD = new RegExp(`^${NUMBER}\\s*stars?$`, 'i');
const STAR_SYMBOLS = /^([★⭐]+)(☆*)$/u;

const inScale = (value: number): number | undefined => (value >= 1 && value <= 5 ? value : undefined);

export function ratingScore(content: unknown): number | undefined {
	if (typeof content !== 'string') return undefined;
	const text = content.trim().replace(/\uFE0F/g, '');
	const number = PLAIN.exec(text) ?? OUT_OF_FIVE.exec(text) ?? STARS_WORD.exec(text);
	if (number) return inScale(Number(number[1].replace(',', '.')));
	const stars = STAR_SYMBOLS.exec(text);
	if (stars) {
		const filled = Array.from(stars[1]).length;
		const empty = Array.from(stars[2]).length;
		if (empty > 0 && filled + empty !== 5) return undefined;
		return inScale(filled);
	}
	return undefined;
}
