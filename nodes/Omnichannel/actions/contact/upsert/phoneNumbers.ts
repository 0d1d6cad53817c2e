/** Phone numbers as Contact > Create or Update compares them; the rules in words are in docs/operations.md ("Create or Update"). */

/** ITU-T E.164's two-digit country calling codes (1 and 7 are the one-digit ones, the rest have three); codes are prefix-free. */
const TWO_DIGIT_CODES = new Set([
	'20', '27', '30', '31', '32', '33', '34', '36', '39', '40', '41', '43', '44', '45', '46', '47', '48', '49',
	'51', '52', '53', '54', '55', '56', '57', '58', '60', '61', '62', '63', '64', '65', '66',
	'81', '82', '84', '86', '90', '91', '92', '93', '94', '95', '98',
]);

/** Countries whose numbers can start with 0 after the country code, so that 0 is no trunk prefix (Italy: +39 06 …). */
const ZERO_IS_PART_OF_THE_NUMBER = new Set(['39', '378', '379', '225', '229', '241', '242']);

/** The country calling code an international number (digits after `+` or `00`) starts with. */
export function countryCallingCode(digits: string): string {
	if (digits.startsWith('1') || digits.startsWith('7')) return digits.slice(0, 1);
	return TWO_DIGIT_CODES.has(digits.slice(0, 2)) ? digits.slice(0, 2) : digits.slice(0, 3);
}

/** Drops the trunk 0 written after the country code (+49 030 … is +49 30 …) where the country's numbers never start with 0. */
function withoutTrunkPrefix(digits: string): string {
	const code = countryCallingCode(digits);
	const rest = digits.slice(code.length);
	return rest.startsWith('0') && !ZERO_IS_PART_OF_THE_NUMBER.has(code) ? code + rest.slice(1) : digits;
}

/** A phone number as compared: its digits, international where the writing says so (+, 00, or a national 0 with the default code); undefined without a digit. */
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

/** The API's search text: the number without its first three digits (a country code has one to three), which every writing of it contains. */
export const phoneSearchText = (key: string): string => (key.length > 6 ? key.slice(3) : key);
