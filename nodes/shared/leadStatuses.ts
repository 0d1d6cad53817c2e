/** The lead statuses a contact can have. */
export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'won', 'lost'] as const;

/** The lead statuses as options; "None" (the empty string) is for create and update only. */
export const leadStatusOptions = [
	{ name: 'Contacted', value: 'contacted' },
	{ name: 'Lost', value: 'lost' },
	{ name: 'New', value: 'new' },
	{ name: 'None', value: '', description: 'No lead status; on update, clears it' },
	{ name: 'Qualified', value: 'qualified' },
	{ name: 'Won', value: 'won' },
];
