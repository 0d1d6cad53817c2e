'use strict';
// Word lists for realistic seeded data. Only data, no logic.

const FIRST_NAMES = [
	'Emma', 'Liam', 'Sofia', 'Noah', 'Mia', 'Lucas', 'Amara', 'Mateo', 'Hannah', 'Yusuf',
	'Chloe', 'Arjun', 'Isabella', 'Kenji', 'Olga', 'Diego', 'Fatima', 'Jonas', 'Leila', 'Marco',
	'Aisha', 'Elias', 'Nora', 'Ravi', 'Sara', 'Tomasz', 'Wei', 'Zoe', 'Camila', 'Oskar',
];
const LAST_NAMES = [
	'Schmidt', 'Garcia', 'Nguyen', 'Okafor', 'Rossi', 'Kowalski', 'Tanaka', 'Silva', 'Dubois', 'Müller',
	'Haddad', 'Johansson', 'Patel', 'Novak', 'Fischer', 'Moreno', 'Ivanova', 'Kim', 'Costa', 'Brennan',
];
const COMPANIES = [
	'Northwind Traders', 'Blue Harbor Logistics', 'Acorn Bakery', 'Helios Solar', 'Pinecrest Dental',
	'Quantum Bikes', 'Riverside Realty', 'Nimbus Software', 'Golden Fork Catering', 'Atlas Fitness', '', '',
];
const JOB_TITLES = ['Owner', 'Operations Manager', 'Head of Sales', 'Office Manager', 'Buyer', 'CTO', 'Marketing Lead', '', ''];
const LEAD_SOURCES = ['website', 'instagram ad', 'referral', 'trade fair', 'whatsapp', ''];
const PLACES = [
	['Berlin', 'Germany'], ['Madrid', 'Spain'], ['Lisbon', 'Portugal'], ['Warsaw', 'Poland'], ['Lagos', 'Nigeria'],
	['Austin', 'United States'], ['Toronto', 'Canada'], ['Osaka', 'Japan'], ['Milan', 'Italy'], ['Lyon', 'France'],
];
const STREETS = ['Main Street', 'Harbour Road', 'Market Square', 'Station Avenue', 'Park Lane', 'Mill Road'];

const CUSTOMER_LINES = [
	'Hi, is my order already on its way?',
	'Hello! Do you deliver on weekends?',
	'I was charged twice for the same invoice, can you check?',
	'Can I change the delivery address for order 4417?',
	'What are your opening hours tomorrow?',
	'The package arrived damaged, what should I do?',
	'Do you have the blue model in size M?',
	'Thanks, that solved it!',
	'Could you send me the invoice as PDF?',
	'Is there a discount for a bulk order of 50 units?',
	'I would like to book an appointment for next Tuesday.',
	'Perfect, thank you very much 🙏',
];
const AGENT_LINES = [
	'Hi! Thanks for reaching out, let me check that for you.',
	'Your order left our warehouse this morning and should arrive within 2 days.',
	'I have refunded the duplicate charge; you will see it in 3-5 business days.',
	'Done, the delivery address is updated.',
	'We are open from 9:00 to 18:00 tomorrow.',
	'Sorry about that! Could you send a photo of the package?',
	'Yes, it is in stock. Shall I reserve one for you?',
	'Here is your invoice, let me know if anything is missing.',
	'For 50 units we can offer 12% off, I will email you a quote.',
	'Your appointment is booked for Tuesday at 10:30.',
	'Happy to help, have a great day!',
];
const SYSTEM_LINES = ['Conversation assigned to the support team.', 'This conversation was reopened.', 'Auto-reply: we answer within one hour.'];

module.exports = { FIRST_NAMES, LAST_NAMES, COMPANIES, JOB_TITLES, LEAD_SOURCES, PLACES, STREETS, CUSTOMER_LINES, AGENT_LINES, SYSTEM_LINES };
