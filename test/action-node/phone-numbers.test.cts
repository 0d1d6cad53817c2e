/**
 * Contact > Create or Update's phone rule (nodes/Omnichannel/actions/contact/upsert/phoneNumbers.ts):
 * the common writings of one number in each country give one key, the
 * national trunk prefix written after the country code included; Italy and
 * the other countries whose numbers start with 0 keep it; the API's phone
 * search text is a part of every writing.
 */
import { countryCallingCode, phoneKey, phoneSearchText } from '../../nodes/Omnichannel/actions/contact/upsert/phoneNumbers';

interface Country {
	country: string;
	/** The default country calling code a user of that country sets. */
	code: string;
	key: string;
	/** Writings seen in sheets and CRMs, national ones with the trunk prefix. */
	writings: string[];
}

const COUNTRIES: Country[] = [
	{
		country: 'Germany',
		code: '49',
		key: '49301234567',
		writings: ['+49 30 1234567', '+49 030 1234567', '+49 (030) 1234567', '(+49) (0)30 1234567', '+49 (0)30 123 45 67', '0049 30 1234567', '0049 (0)30-1234567', '00 49 030 1234567', '030 1234567', '(030) 123 45 67', '030/1234567'],
	},
	{
		country: 'Austria',
		code: '43',
		key: '4311234567',
		writings: ['+43 1 1234567', '+43 (0)1 1234567', '+43 01 1234567', '0043 1 1234567', '01 1234567', '(01) 123 45 67'],
	},
	{
		country: 'Switzerland',
		code: '41',
		key: '41441234567',
		writings: ['+41 44 123 45 67', '+41 (0)44 123 45 67', '+41 044 123 45 67', '0041 44 123 45 67', '044 123 45 67'],
	},
	{
		country: 'France',
		code: '33',
		key: '33612345678',
		writings: ['+33 6 12 34 56 78', '+33 (0)6 12 34 56 78', '+33 06 12 34 56 78', '0033 6 12 34 56 78', '06 12 34 56 78', '06.12.34.56.78'],
	},
	{
		country: 'United Kingdom',
		code: '44',
		key: '442079460000',
		writings: ['+44 20 7946 0000', '+44 (0)20 7946 0000', '+44 020 7946 0000', '(+44) (0) 20 7946 0000', '0044 20 7946 0000', '020 7946 0000', '(020) 7946 0000'],
	},
	{
		country: 'Netherlands',
		code: '31',
		key: '31201234567',
		writings: ['+31 20 123 4567', '+31 (0)20 123 4567', '+31 020 123 4567', '0031 20 1234567', '020-123 4567'],
	},
	{
		country: 'Belgium',
		code: '32',
		key: '3221234567',
		writings: ['+32 2 123 45 67', '+32 (0)2 123 45 67', '+32 02 123 45 67', '0032 2 123 45 67', '02 123 45 67'],
	},
	{
		country: 'Sweden',
		code: '46',
		key: '46812345678',
		writings: ['+46 8 123 456 78', '+46 (0)8 123 456 78', '+46 08 123 456 78', '0046 8 12345678', '08-123 456 78'],
	},
	{
		country: 'Ireland (a three-digit code)',
		code: '353',
		key: '35312345678',
		writings: ['+353 1 234 5678', '+353 (0)1 234 5678', '+353 01 234 5678', '00353 1 234 5678', '01 234 5678'],
	},
	{
		country: 'Australia',
		code: '61',
		key: '61212345678',
		writings: ['+61 2 1234 5678', '+61 (0)2 1234 5678', '+61 02 1234 5678', '0061 2 1234 5678', '(02) 1234 5678'],
	},
	{
		country: 'Japan',
		code: '81',
		key: '81312345678',
		writings: ['+81 3-1234-5678', '+81 (0)3-1234-5678', '+81 03-1234-5678', '0081 3 1234 5678', '03-1234-5678'],
	},
	{
		country: 'China',
		code: '86',
		key: '861012345678',
		writings: ['+86 10 1234 5678', '+86 (0)10 1234 5678', '+86 010 1234 5678', '0086 10 12345678', '010 1234 5678'],
	},
	{
		country: 'India',
		code: '91',
		key: '911123456789',
		writings: ['+91 11 2345 6789', '+91 (0)11 2345 6789', '+91 011 2345 6789', '0091 11 23456789', '011 2345 6789'],
	},
	{
		country: 'Turkey',
		code: '90',
		key: '902121234567',
		writings: ['+90 212 123 45 67', '+90 (212) 123 45 67', '+90 (0212) 123 45 67', '+90 0212 123 45 67', '0090 212 1234567', '0212 123 45 67', '(0212) 123 45 67'],
	},
	{
		country: 'Italy (the 0 is part of the number)',
		code: '39',
		key: '39061234567',
		writings: ['+39 06 1234567', '+39 (0)6 1234567', '0039 06 1234567', '(+39) 06 123 4567', '06 1234567', '06/1234567'],
	},
	{
		country: 'Côte d\'Ivoire (numbers start with 0, no trunk prefix)',
		code: '225',
		key: '2250701234567',
		writings: ['+225 07 01 23 45 67', '00225 07 01 23 45 67', '07 01 23 45 67'],
	},
	{
		country: 'United States and Canada (one-digit code)',
		code: '1',
		key: '15551234567',
		writings: ['+1 555 123 4567', '+1 (555) 123-4567', '+1-555-123-4567', '001 555 123 4567', '(+1) 555.123.4567'],
	},
];

describe('the common writings of a number are one key, in each country', () => {
	test.each(COUNTRIES.map((country) => [country.country, country] as const))('%s', (_name, { code, key, writings }) => {
		expect(Object.fromEntries(writings.map((writing) => [writing, phoneKey(writing, code)]))).toEqual(Object.fromEntries(writings.map((writing) => [writing, key])));
	});

	test.each(COUNTRIES.map((country) => [country.country, country] as const))('%s: every writing holds the search text', (_name, { code, key, writings }) => {
		const search = phoneSearchText(key);
		for (const writing of writings) expect({ writing, digits: writing.replace(/\D/g, '') }).toEqual({ writing, digits: expect.stringContaining(search) as string });
		expect(phoneKey(`+${key}`, code)).toBe(key);
	});
});

describe('where the rule stops', () => {
	test('the trunk 0 written after the country code is the same number (the writings the issue reported)', () => {
		expect(['+49 030 1234567', '+49 (030) 1234567', '(+49) (0)30 1234567'].map((writing) => phoneKey(writing))).toEqual(['49301234567', '49301234567', '49301234567']);
	});

	test('Italian numbers keep their 0 after the country code, national and international', () => {
		expect(phoneKey('+39 06 1234567')).toBe('39061234567');
		expect(phoneKey('+39 6 1234567')).toBe('3961234567');
		expect(phoneKey('06 1234567', '39')).toBe('39061234567');
	});

	test('without a default country code a national number is its digits as written; a number without +, 00 or 0 too', () => {
		expect(phoneKey('(030) 1234567')).toBe('0301234567');
		expect(phoneKey('30 1234567', '49')).toBe('301234567');
		expect(phoneKey('(555) 123-4567', '1')).toBe('5551234567');
		expect(phoneKey('no digits here')).toBeUndefined();
	});

	test('country calling codes: one, two or three digits, read from the first digits', () => {
		expect(['15551234567', '74951234567', '49301234567', '390612345', '35312345678', '2250701234567', '8801712345678', '420212345678'].map(countryCallingCode)).toEqual(['1', '7', '49', '39', '353', '225', '880', '420']);
	});
});
