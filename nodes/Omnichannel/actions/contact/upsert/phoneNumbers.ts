/**
 * Phone numbers as Contact > Create or Update compares them: their digits, in
 * international form where the writing says so. The rules in words, with the
 * countries tested, are in docs/operations.md ("Create or Update").
 */

/**
 * The two-digit country calling codes of ITU-T E.164; 1 and 7 are the one-digit
 * ones and every other code has three digits. Codes are prefix-free, so the
 * first digits of an international number tell where its code ends.
 */
const TWO_DIGIT_CODES = new Set([
	'20', '27', '30', '31', '32', '33', '34', '36', '39', '40', '41', '43', '44', '45', '46', '47', '48', '49',
	'51', '52', '53', '54', '55', '56', '57', '58', '60', '61', '62', '63', '64', '65', '66',
	'81', '82', '84', '86', '90', '91', '92', '93', '94', '95', '98',
]);

/**
 * Countries whose numbers can start with 0 after the country code, so a 0
 * there is part of the number, not the national trunk prefix: Italy (its
 * landlines, `+39 06 …`), San Marino and Vatican City, Côte d'Ivoire, Benin,
 * Gabon and the Republic of the Congo (numbering plans without a trunk
 * prefix whose numbers begin with 0).
 */
const ZERO_IS_PART_OF_THE_NUMBER = new Set(['39', '378', '379', '225', '229', '241', '242']);

/** The country calling code an international number (digits after `+` or `00`) starts with. */
export function countryCallingCode(digits: string): string {
	if (digits.startsWith('1') || digits.startsWith('7')) return digits.slice(0, 1);
	return TWO_DIGIT_CODES.has(digits.slice(0, 2)) ? digits.slice(0, 2) : digits.slice(0, 3);
}

/**
 * An international number without the national trunk prefix written after its
 * country code (`+49 030 …` is `+49 30 …`), where the country's numbers never
 * start with 0.
 */
function withoutTrunkPrefix(digits: string): string {
	const code = countryCallingCode(digits);
	const rest = digits.slice(code.length);
	return rest.startsWith('0') && !ZERO_IS_PART_OF_THE_NUMBER.has(code) ? code + rest.slice(1) : digits;
}

/**
 * A phone number as compared: its digits, in international form where the
 * writing says so.
 * - a `+` before the first digit, or a leading `00`: international; a 0
 *   after the country code is the trunk prefix written out (`+49 030 …`,
 *   `+49 (0)30 …`) and is dropped, except for the countries above;
 * - a leading single `0` with a default country calling code: national, the
 *   trunk `0` is replaced by the code (`(030) 1234567` with 49 is
 *   `49301234567`); for the countries above the `0` stays (`06 1234567` with
 *   39 is `39061234567`);
 * - anything else: the digits as written.
 * Undefined when there is no digit.
 */
export function phoneKey(phone: string, defaultCountryCode = ''): string | undefined {
	const text = phone.trim();
	const plus = /^[^\d+]*\+/.test(text);
	const international = plus || /^\D*00/.test(text);
	const digits = text.replace(/\D/g, '');
	if (digits === '') return undefined;
	if (international) return withoutTrunkPrefix(plus ? digits : digits.slice(2));
	if (defaultCountryCode !== '' && /^0[1-9]/.test(digits)) {
		return defaultCountryCode + (ZERO_IS_PART_OF_THE_NUMBER.has(defaultCountryCode) ? digits : digits.slice(1));
	}
	return digits;
}

/**
 * The text the API's phone search gets: the number without its first three
 * digits (a country code has one to three), which every writing of the same
 * number contains once the API drops non-digits (what a writing adds, `00`,
 * a trunk `0`, the code, comes before it); the whole number when short.
 */
export const phoneSearchText = (key: string): string => (key.length > 6 ? key.slice(3) : key);
